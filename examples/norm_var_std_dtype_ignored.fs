// norm_var_std_dtype_ignored: var / std with a `type` argument: TorchSharp never passes it to LibTorch, so float32 stays float32 (float64 / float16 requests ignored)
module Examples.NormVarStdDtypeIgnored

open TorchSharp

[<Kgen.Entry("float32[457,67]")>]
let norm_var_std_dtype_ignored =
    <@ fun (x: torch.Tensor) ->
        (x.var(-1L, true, false, torch.float64),
         torch.var(x, [| 0L |], false, true, torch.ScalarType.Float64),
         x.std([| 1L |], true, false, torch.float16),
         torch.std(x, 0L, true, false, torch.float64)) @>
