// red_mean_all: all-reduce mean (torch static and instance) of float32 [3, 4097], float64 [2000, 7] and float64 [4097]
module Examples.RedMeanAll

open TorchSharp

[<Kgen.Entry("float32[3,4097], float64[2000,7], float64[4097]")>]
let red_mean_all =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (z: torch.Tensor) ->
        (x.mean(),
         torch.mean(x),
         y.mean(),
         torch.mean(y),
         z.mean([| 0L |]),
         z.mean([| -1L |], true)) @>
