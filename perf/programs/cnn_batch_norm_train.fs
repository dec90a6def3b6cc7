// cnn_batch_norm_train: training-mode batch_norm (batch statistics) and relu
module Perf.CnnBatchNormTrain

open TorchSharp

[<Kgen.Entry("float32[8,64,28,28], float32[64], float32[64]")>]
let cnn_batch_norm_train =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.batch_norm(x, null, null, w, b, true).relu() @>
