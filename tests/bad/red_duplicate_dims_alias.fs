// red_duplicate_dims_alias: dims -1 and 2 name the same axis of a 3-D tensor: x.mean([| -1L; 2L |])
module Bad.RedDuplicateDimsAlias

open TorchSharp

[<Kgen.Entry("float32[3,4,5]")>]
let red_duplicate_dims_alias =
    <@ fun (x: torch.Tensor) -> x.mean([| -1L; 2L |]) @>
