// norm_softmax_method: x.softmax(Int64 dim, dtype): rows of 4097 ([67, 4097]), as float64 (enum), columns of 2000 and rows of 7 of [2000, 7], float64 rows of 67
module Examples.NormSoftmaxMethod

open TorchSharp

[<Kgen.Entry("float32[67,4097], float32[2000,7], float64[457,67]")>]
let norm_softmax_method =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (d: torch.Tensor) ->
        (x.softmax(-1L),
         x.softmax(1L, torch.ScalarType.Float64),
         y.softmax(0L),
         y.softmax(-1L),
         d.softmax(-1L),
         d.softmax(0L, torch.float32)) @>
