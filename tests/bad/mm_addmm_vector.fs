// mm_addmm_vector: addmm with a 1-D mat1 (addmm takes matrices only)
module Bad.MmAddmmVector

open TorchSharp

[<Kgen.Entry("float32[3], float32[3], float32[3,3]")>]
let mm_addmm_vector =
    <@ fun (c: torch.Tensor) (a: torch.Tensor) (b: torch.Tensor) -> torch.addmm(c, a, b, 1.0f, 1.0f) @>
