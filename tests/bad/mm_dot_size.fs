// mm_dot_size: torch.dot of vectors of 3 and 4 elements
module Bad.MmDotSize

open TorchSharp

[<Kgen.Entry("float32[3], float32[4]")>]
let mm_dot_size =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.dot(a, b) @>
