// mm_bmm_sym: torch.bmm and Tensor.bmm over a symbolic batch B: [B,9,5] by [B,5,6] (grid.z = B)
module Examples.MmBmmSym

open TorchSharp

[<Kgen.Entry("float32[B,9,5], float32[B,5,6]")>]
let mm_bmm_sym =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.bmm(a, b), a.bmm(b).relu() @>
