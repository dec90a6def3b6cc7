// norm_prim_layer_norm_half: layer norm by hand in float16 (rows of 1024: d = x - mean, d.square(), rsqrt) and over the last dim of a bfloat16 [7, 67, 457]
module Examples.NormPrimLayerNormHalf

open TorchSharp

[<Kgen.Entry("float16[67,1024], float16[1024], float16[1024], bfloat16[7,67,457]")>]
let norm_prim_layer_norm_half =
    <@ fun (h: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) (g: torch.Tensor) ->
        let d = h - h.mean([| -1L |], true)
        let c = g - g.mean([| -1L |], true)
        (d * (d.square().mean([| -1L |], true) + 1e-05f).rsqrt() * w + b,
         c / (c.square().mean([| -1L |], true) + 1e-05f).sqrt()) @>
