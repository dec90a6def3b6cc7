// red_duplicate_dims: the same dim twice in an Int64[] dims array: x.sum([| 1L; 1L |])
module Bad.RedDuplicateDims

open TorchSharp

[<Kgen.Entry("float32[3,4]")>]
let red_duplicate_dims =
    <@ fun (x: torch.Tensor) -> x.sum([| 1L; 1L |]) @>
