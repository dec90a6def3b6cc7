// attn_mask_dtype: scaled_dot_product_attention's mask must be bool, float or the query's dtype (an int64 mask is rejected as PyTorch rejects it)
module Bad.AttnMaskDtype

open TorchSharp

[<Kgen.Entry("float32[2,4,8,16], float32[2,4,8,16], float32[2,4,8,16], int64[8,8]")>]
let attn_mask_dtype =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) (m: torch.Tensor) ->
        torch.nn.functional.scaled_dot_product_attention(q, k, v, m) @>
