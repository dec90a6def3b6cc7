// einsum_subscript_rank: einsum with three subscripts for a 2-D operand
module Bad.EinsumSubscriptRank

open TorchSharp

[<Kgen.Entry("float32[2,3]")>]
let einsum_subscript_rank =
    <@ fun (a: torch.Tensor) -> torch.einsum("ijk->ik", a) @>
