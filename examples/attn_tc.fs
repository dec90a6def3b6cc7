// attn_tc: float16 and bfloat16 attention on the tensor-core tile (FlashAttention-2 on mma.sync)
// — passes/lower_attn_mma.c — causal over a symbolic sequence; cross-attention with
// an additive mask, head dims 40 and 24 (padded to 16) over query and key blocks that do not
// divide 64; head dim 128 with a boolean mask broadcast over the heads and a residual; attention
// written by hand (a scale, a masked_fill, softmax, @ v); dropout
module Examples.AttnTc

open System
open TorchSharp

[<Kgen.Entry("float16[2,3,T,64], float16[2,3,T,64], float16[2,3,T,64]")>]
let attn_tc_causal =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_casual = true) @>

[<Kgen.Entry("bfloat16[2,3,70,40], bfloat16[2,3,133,40], bfloat16[2,3,133,24], bfloat16[70,133]")>]
let attn_tc_cross_mask =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) (m: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, m) @>

[<Kgen.Entry("float16[1,2,65,128], float16[1,2,65,128], float16[1,2,65,128], float16[1,1,65,65]")>]
let attn_tc_bool_mask_d128 =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) (m: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, m.gt(torch.tensor(-1.0f))) + q @>

[<Kgen.Entry("float16[2,2,50,32], float16[2,2,50,32], float16[2,2,50,32], float16[50,50]")>]
let attn_tc_handwritten =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) (m: torch.Tensor) ->
        let scores = q.matmul(k.transpose(-2L, -1L)) / 4.0f
        scores.masked_fill(m.lt(torch.tensor(-1.5f)), Double.NegativeInfinity).softmax(-1L).matmul(v) @>

[<Kgen.Entry("bfloat16[2,3,29,16], bfloat16[2,3,29,16], bfloat16[2,3,29,16]")>]
let attn_tc_dropout =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, p = 0.25, is_casual = true) @>
