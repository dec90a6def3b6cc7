// norm_batch_train: batch_norm in training mode with running statistics, as a training step runs it: the output from the batch statistics, running_mean and running_var updated in place (momentum-weighted, unbiased variance) in the caller's tensors — functional on inputs, and a BatchNorm2d module in training mode whose buffers (and num_batches_tracked) are written back
module Examples.NormBatchTrain

open TorchSharp
open type TorchSharp.torch.nn

[<Kgen.Entry("float32[4,3,5,2], float32[3], float32[3] in [0.5, 2), float32[3], float32[3]")>]
let norm_batch_train =
    <@ fun (x: torch.Tensor) (rm: torch.Tensor) (rv: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.batch_norm(x, rm, rv, w, b, true, 0.2, 1e-5).relu() @>

[<Kgen.Entry("float16[3,4,2,2], float32[4], float32[4] in [0.5, 2)")>]
let norm_batch_train_half =
    <@ fun (x: torch.Tensor) (rm: torch.Tensor) (rv: torch.Tensor) ->
        torch.nn.functional.batch_norm(x, rm, rv, training = true) @>

// the weights from a fixed seed: the document describes captured tensors by their range
torch.manual_seed(20261125L) |> ignore

let bn =
    let m = BatchNorm2d(4L)
    m.train()
    m

[<Kgen.Entry("float32[2,4,3,3]")>]
let norm_batch_train_module = <@ fun (x: torch.Tensor) -> bn.forward(x) * 2.0f @>
