// red_fuse_center_half: centering in float16 (rows of 1024) and bfloat16 (columns: mean over dim 0 broadcast down the rows)
module Examples.RedFuseCenterHalf

open TorchSharp

[<Kgen.Entry("float16[67,1024], bfloat16[457,67]")>]
let red_fuse_center_half =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) ->
        (h - h.mean([| -1L |], true), g - g.mean([| 0L |], true)) @>
