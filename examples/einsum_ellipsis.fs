// einsum_ellipsis: torch.einsum with '...' (PyTorch's ellipsis) — attention scores "...qd,...kd->...qk" over any batch dims, batched products "...ij,...jk" whose batch dims broadcast (size 1 against 5), "b...,b...->b" (operands whose '...' cover different numbers of dims), an output without '...' summing the dims it covers, a diagonal under '...', '...' covering no dims, and implicit outputs (the covered dims first)
module Examples.EinsumEllipsis

open TorchSharp

[<Kgen.Entry("float32[2,3,5,4], float32[2,3,6,4]")>]
let ellipsis_attention =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) -> torch.einsum("...qd,...kd->...qk", q, k) * 0.5f @>

[<Kgen.Entry("float32[2,1,3,4], float32[5,4,2], float32[2,3], float32[2,1,3], float32[2,3,3]")>]
let ellipsis_forms =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (x: torch.Tensor) (y: torch.Tensor) (m: torch.Tensor) ->
        torch.einsum("...ij,...jk", a, b), torch.einsum("b...,b...->b", x, y), torch.einsum("...ij->ij", a),
        torch.einsum("...ii->...i", m), torch.einsum("ij...,kj...->ik...", x, x), torch.einsum("...", m),
        torch.einsum("i...->...", x) @>
