// mm_attention_heads: multi-head attention as real models write it: heads split by view + transpose, scores q @ k.transpose(-2, -1) (the transposed operand read in place, no copy), a causal mask from triu, softmax, @ v, heads merged back and projected by a linear layer
module Examples.MmAttentionHeads

open TorchSharp

[<Kgen.Entry("float32[2,5,12], float32[2,5,12], float32[2,5,12], float32[12,12], float32[12]")>]
let mm_attention_heads =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) (wo: torch.Tensor) (bo: torch.Tensor) ->
        let qh = q.view(2L, 5L, 3L, 4L).transpose(1L, 2L)
        let kh = k.view(2L, 5L, 3L, 4L).transpose(1L, 2L)
        let vh = v.view(2L, 5L, 3L, 4L).transpose(1L, 2L)
        let mask = torch.ones(5L, 5L).triu(1L).to_type(torch.ScalarType.Bool)
        let scores = qh.matmul(kh.transpose(-2L, -1L)) * 0.5f
        let p = scores.masked_fill(mask, System.Single.NegativeInfinity).softmax(-1L)
        let o = p.matmul(vh).transpose(1L, 2L).contiguous().view(2L, 5L, 12L)
        torch.nn.functional.linear(o, wo, bo) @>
