// einsum_operand_count: einsum whose equation names two operands, given one
module Bad.EinsumOperandCount

open TorchSharp

[<Kgen.Entry("float32[2,3]")>]
let einsum_operand_count =
    <@ fun (a: torch.Tensor) -> torch.einsum("ij,jk->ik", a) @>
