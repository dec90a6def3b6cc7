// cnn_instance_norm_running_stats: instance_norm with use_input_stats and running statistics: PyTorch updates them in place with the batch-averaged instance statistics, which kgen does not do yet (batch_norm's update it does)
module Bad.CnnInstanceNormRunningStats

open TorchSharp

[<Kgen.Entry("float32[2,3,4,4], float32[3], float32[3]")>]
let cnn_instance_norm_running_stats =
    <@ fun (x: torch.Tensor) (rm: torch.Tensor) (rv: torch.Tensor) -> torch.nn.functional.instance_norm(x, rm, rv, use_input_stats = true) @>
