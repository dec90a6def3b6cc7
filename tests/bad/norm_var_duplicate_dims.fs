// norm_var_duplicate_dims: var over dims [| 1L; -1L |] of a 2-D tensor: both name the last axis
module Bad.NormVarDuplicateDims

open TorchSharp

[<Kgen.Entry("float32[3,4]")>]
let norm_var_duplicate_dims =
    <@ fun (x: torch.Tensor) -> x.var([| 1L; -1L |]) @>
