// norm_prim_rmsnorm_half: RMSNorm by hand in float16 (rows of 457, weight a float16 parameter) and bfloat16 (rows of 4097)
module Examples.NormPrimRmsnormHalf

open TorchSharp

[<Kgen.Entry("float16[457,457], float16[457], bfloat16[7,4097], bfloat16[4097]")>]
let norm_prim_rmsnorm_half =
    <@ fun (h: torch.Tensor) (wh: torch.Tensor) (g: torch.Tensor) (wg: torch.Tensor) ->
        (h * (h.square().mean([| -1L |], true) + 1e-05f).rsqrt() * wh,
         g * (g.square().mean([| -1L |], true) + 1e-05f).rsqrt() * wg) @>
