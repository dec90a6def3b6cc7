// einsum_contract: torch.einsum for the contractions attention code writes — scores "bhqd,bhkd->bhqk", batched products "bij,bjk->bik", "ij->ji", the diagonal "ii->i", sums over letters, an implicit output, three operands — each lowered to one matrix product and views; outer / ger
module Examples.EinsumContract

open TorchSharp

[<Kgen.Entry("float32[2,3,5,4], float32[2,3,6,4], float32[2,3,6,4]")>]
let einsum_attention =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        let s = torch.einsum("bhqd,bhkd->bhqk", q, k) * 0.5f
        torch.einsum("bhqk,bhkd->bhqd", s.softmax(-1L), v) @>

[<Kgen.Entry("float32[3,4,5], float32[3,5,2], float32[4,4]")>]
let einsum_forms =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (m: torch.Tensor) ->
        torch.einsum("bij,bjk->bik", a, b), torch.einsum("ij->ji", m), torch.einsum("ii->i", m), torch.einsum("ii", m),
        torch.einsum("bij->j", a), torch.einsum("bij,bjk", a, b), torch.einsum("bij,bjk,kl->bil", a, b, m.narrow(0L, 0L, 2L)),
        torch.einsum("ij,ij->ij", m, m) @>

[<Kgen.Entry("float32[5], float32[3], int64[4], int64[2]")>]
let einsum_outer =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (i: torch.Tensor) (j: torch.Tensor) ->
        torch.outer(a, b), a.outer(b) + 1.0f, torch.ger(i, j), i.ger(j), torch.einsum("i,j->ij", a, b) @>
