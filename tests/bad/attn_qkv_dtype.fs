// attn_qkv_dtype: scaled_dot_product_attention's query, key and value must have one dtype
module Bad.AttnQkvDtype

open TorchSharp

[<Kgen.Entry("float32[2,4,8,16], float64[2,4,8,16], float32[2,4,8,16]")>]
let attn_qkv_dtype =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v) @>
