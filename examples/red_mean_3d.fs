// red_mean_3d: mean of [67, 7, 67] over [|0L; 2L|], [|1L|] keepdim, [|-2L; -1L|], all three dims
module Examples.RedMean3d

open TorchSharp

[<Kgen.Entry("float32[67,7,67]")>]
let red_mean_3d =
    <@ fun (x: torch.Tensor) ->
        (x.mean([| 0L; 2L |]),
         x.mean([| 1L |], true),
         x.mean([| -2L; -1L |]),
         x.mean([| 0L; 1L; 2L |])) @>
