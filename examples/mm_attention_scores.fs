// mm_attention_scores: attention as three kernels: q @ kT scaled and masked (the scores stored once by the product's epilogue), softmax over the keys (a row kernel), then @ v
module Examples.MmAttentionScores

open TorchSharp

[<Kgen.Entry("float32[2,6,8], float32[2,8,6], float32[2,6,8], float32[6,6]")>]
let mm_attention_scores =
    <@ fun (q: torch.Tensor) (kt: torch.Tensor) (v: torch.Tensor) (mask: torch.Tensor) ->
        let scores = q.matmul(kt) * 0.35355339f + mask
        scores.softmax(-1L).matmul(v) @>
