// norm_log_softmax_special_functional: torch.special.log_softmax (dtype) and nn.functional.log_softmax(T, Int64) on [1024, 67] and over the middle / last dim of [67, 7, 457]
module Examples.NormLogSoftmaxSpecialFunctional

open TorchSharp

[<Kgen.Entry("float32[1024,67], float32[67,7,457]")>]
let norm_log_softmax_special_functional =
    <@ fun (x: torch.Tensor) (z: torch.Tensor) ->
        (torch.special.log_softmax(x, -1L),
         torch.special.log_softmax(x, 0L, torch.float64),
         torch.nn.functional.log_softmax(x, 1L),
         torch.nn.functional.log_softmax(z, 1L),
         torch.special.log_softmax(z, -1L)) @>
