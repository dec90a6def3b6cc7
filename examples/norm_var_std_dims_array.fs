// norm_var_std_dims_array: var / std over Int64[] dims of [7, 457, 67]: [|0L; 2L|], the middle dim keepdim, [|-1L|], all three dims, unordered [|2L; 0L|] (Tensor and torch static)
module Examples.NormVarStdDimsArray

open TorchSharp

[<Kgen.Entry("float32[7,457,67]")>]
let norm_var_std_dims_array =
    <@ fun (z: torch.Tensor) ->
        (z.var([| 0L; 2L |]),
         z.var([| 1L |], false, true),
         torch.var(z, [| -1L |], true, false),
         torch.var(z, [| 0L; 1L; 2L |], false, true),
         z.std([| -2L |]),
         torch.std(z, [| 2L; 0L |], false, true),
         z.std([| 0L; 1L; 2L |])) @>
