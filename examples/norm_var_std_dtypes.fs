// norm_var_std_dtypes: var / std keep the input dtype: float16 [67, 1024], bfloat16 [457, 67], float64 [2000, 7] (rows, columns, all; unbiased true / false)
module Examples.NormVarStdDtypes

open TorchSharp

[<Kgen.Entry("float16[67,1024], bfloat16[457,67], float64[2000,7]")>]
let norm_var_std_dtypes =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) (d: torch.Tensor) ->
        (h.var(-1L),
         h.std(0L, false, true),
         torch.var(h),
         g.std([| 1L |]),
         torch.var(g, 0L, false),
         g.std(true),
         d.var(1L),
         d.std(0L, false, true),
         torch.var(d, [| 0L; 1L |]),
         torch.std(d, false)) @>
