// attn_kv_mismatch: scaled_dot_product_attention's key and value must have the same number of keys
module Bad.AttnKvMismatch

open TorchSharp

[<Kgen.Entry("float32[2,4,8,16], float32[2,4,10,16], float32[2,4,12,16]")>]
let attn_kv_mismatch =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v) @>
