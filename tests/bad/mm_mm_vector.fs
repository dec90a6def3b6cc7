// mm_mm_vector: torch.mm with a 1-D operand (mm takes matrices only)
module Bad.MmMmVector

open TorchSharp

[<Kgen.Entry("float32[3], float32[3,3]")>]
let mm_mm_vector =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.mm(a, b) @>
