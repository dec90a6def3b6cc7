// norm_norm_dtypes_3d: norm over the middle dim of [7, 457, 67] (keepdim), float64 rows of 7 (p = 1), float16 rows of 457 (p = 3), bfloat16 all-element (infinity) and columns
module Examples.NormNormDtypes3d

open TorchSharp

[<Kgen.Entry("float32[7,457,67], float64[2000,7], float16[67,457], bfloat16[457,67]")>]
let norm_norm_dtypes_3d =
    <@ fun (z: torch.Tensor) (d: torch.Tensor) (h: torch.Tensor) (g: torch.Tensor) ->
        (z.norm(1, true),
         torch.norm(d, 1, false, 1.0f),
         h.norm(-1, false, 3.0f),
         g.norm(System.Single.PositiveInfinity),
         torch.norm(g, 0)) @>
