// attn_sdpa: torch.nn.functional.scaled_dot_product_attention as one fused kernel (the flash
// scheme: passes/lower_attn.c): causal over a symbolic sequence, with an additive mask, with a
// boolean mask broadcast over the heads, cross-attention (queries and keys of other lengths,
// value head dim 24), float16 and bfloat16, float64
module Examples.AttnSdpa

open TorchSharp

[<Kgen.Entry("float32[2,4,T,16], float32[2,4,T,16], float32[2,4,T,16]")>]
let attn_sdpa_causal =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_casual = true) @>

[<Kgen.Entry("float32[2,3,37,8], float32[2,3,45,8], float32[2,3,45,24], float32[37,45]")>]
let attn_sdpa_cross_mask =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) (m: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, m) @>

[<Kgen.Entry("float32[2,4,33,16], float32[2,4,33,16], float32[2,4,33,16], float32[2,1,33,33]")>]
let attn_sdpa_bool_mask =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) (m: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, m.gt(torch.tensor(-6.0f))) + q @>

[<Kgen.Entry("float16[2,2,40,32], float16[2,2,40,32], float16[2,2,40,32], bfloat16[3,19,64], bfloat16[3,50,64], bfloat16[3,50,64]")>]
let attn_sdpa_half =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) (qb: torch.Tensor) (kb: torch.Tensor) (vb: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_casual = true),
        torch.nn.functional.scaled_dot_product_attention(qb, kb, vb) @>

[<Kgen.Entry("float64[5,21,128], float64[5,21,128], float64[5,21,128]")>]
let attn_sdpa_f64 =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q * 0.5, k, v, is_casual = true) @>
