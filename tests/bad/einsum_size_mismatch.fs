// einsum_size_mismatch: einsum where subscript j is 3 in one operand and 4 in the other
module Bad.EinsumSizeMismatch

open TorchSharp

[<Kgen.Entry("float32[2,3], float32[4,2]")>]
let einsum_size_mismatch =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.einsum("ij,jk->ik", a, b) @>
