// norm_logsumexp_dtypes: logsumexp of float64 rows of 7, the middle dim of [7, 457, 7], float16 rows of 457, bfloat16 columns
module Examples.NormLogsumexpDtypes

open TorchSharp

[<Kgen.Entry("float64[2000,7], float32[7,457,7], float16[67,457], bfloat16[457,67]")>]
let norm_logsumexp_dtypes =
    <@ fun (d: torch.Tensor) (z: torch.Tensor) (h: torch.Tensor) (g: torch.Tensor) ->
        (d.logsumexp(1L), z.logsumexp(1L, true), h.logsumexp(-1L), torch.logsumexp(g, 0L, false)) @>
