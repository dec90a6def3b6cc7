// red_nansum: nansum (torch static and instance; all-reduce only) skips NaN (sqrt of negatives, log(y + 6) for y < -6) in float32 / float64 / float16 / bfloat16
module Examples.RedNansum

open TorchSharp

[<Kgen.Entry("float32[457,67], float64[1024], float16[67,7], bfloat16[1,1024]")>]
let red_nansum =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (h: torch.Tensor) (g: torch.Tensor) ->
        (torch.nansum(x.sqrt()),
         x.sqrt().nansum(),
         (y + 6.0).log().nansum(),
         torch.nansum(x),
         h.sqrt().nansum(),
         torch.nansum(g.log()),
         h.nansum()) @>
