// cnn_bn_training_running_stats: batch_norm in training mode with running statistics: PyTorch updates them in place, which kgen cannot do yet
module Bad.CnnBnTrainingRunningStats

open TorchSharp

[<Kgen.Entry("float32[2,3,4,4], float32[3], float32[3]")>]
let cnn_bn_training_running_stats =
    <@ fun (x: torch.Tensor) (rm: torch.Tensor) (rv: torch.Tensor) -> torch.nn.functional.batch_norm(x, rm, rv, training = true) @>
