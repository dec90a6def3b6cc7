// attn_sdpa_train: attention with dropout and the hand-written attention kgen recognizes
// (passes/attention.c): scaled_dot_product_attention with dropout_p (drawn from kgen's Philox
// generator over [batch, heads, L, S], applied after the softmax as PyTorch's math path does),
// a plain non-causal one over symbolic sizes (the benchmark's entry), and softmax(q kᵀ · s +
// mask) @ v written out with a masked_fill, a cast and dropout, compiled to the same one kernel
module Examples.AttnSdpaTrain

open System
open TorchSharp

[<Kgen.Entry("float32[B,H,T,64], float32[B,H,T,64], float32[B,H,T,64]")>]
let attn_sdpa_plain =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v) @>

[<Kgen.Entry("float32[2,3,29,16], float32[2,3,29,16], float32[2,3,29,16]")>]
let attn_sdpa_dropout =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, p = 0.25, is_casual = true) @>

[<Kgen.Entry("float32[2,4,23,16], float32[2,4,23,16], float32[2,4,23,16], float32[23,23]")>]
let attn_handwritten =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) (m: torch.Tensor) ->
        let scores = q.matmul(k.transpose(-2L, -1L)) / 4.0f
        let p = scores.masked_fill(m.lt(torch.tensor(-7.0f)), Double.NegativeInfinity).softmax(-1L)
        torch.nn.functional.dropout(p.to_type(torch.float32), 0.1, true).matmul(v) @>
