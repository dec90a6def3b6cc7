// norm_softmax_special_functional: torch.special.softmax and nn.functional.softmax (Int64 dim, dtype) on [1024, 67] (rows, columns) and over each axis of [7, 457, 67] (the middle one strided)
module Examples.NormSoftmaxSpecialFunctional

open TorchSharp

[<Kgen.Entry("float32[1024,67], float32[7,457,67]")>]
let norm_softmax_special_functional =
    <@ fun (x: torch.Tensor) (z: torch.Tensor) ->
        (torch.special.softmax(x, -1L),
         torch.special.softmax(x, 0L, torch.float32),
         torch.nn.functional.softmax(x, 1L),
         torch.nn.functional.softmax(z, 1L),
         torch.special.softmax(z, -1L, torch.float64),
         torch.nn.functional.softmax(z, 0L, torch.ScalarType.Float32)) @>
