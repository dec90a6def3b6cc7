// red_mean_dims_2d: mean(Int64[] dims, keepdim, type) on [457, 67]: rows, rows keepdim, columns (static), all keepdim, columns as float64
module Examples.RedMeanDims2d

open TorchSharp

[<Kgen.Entry("float32[457,67]")>]
let red_mean_dims_2d =
    <@ fun (x: torch.Tensor) ->
        (x.mean([| 1L |]),
         x.mean([| -1L |], true),
         torch.mean(x, [| 0L |]),
         torch.mean(x, [| 0L; 1L |], true),
         x.mean([| 0L |], false, torch.float64)) @>
