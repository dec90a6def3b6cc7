// cnn_bn_relu_maxpool: ResNet's stem tail: eval-mode batch_norm, relu and max_pool2d 3x3 / 2 (one kernel)
module Perf.CnnBnReluMaxpool

open TorchSharp

[<Kgen.Entry("float32[8,64,56,56], float32[64], float32[64], float32[64], float32[64]")>]
let cnn_bn_relu_maxpool =
    <@ fun (x: torch.Tensor) (rm: torch.Tensor) (rv: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.max_pool2d(torch.nn.functional.batch_norm(x, rm, rv, w, b).relu(), [| 3L; 3L |], [| 2L; 2L |], [| 1L; 1L |]) @>
