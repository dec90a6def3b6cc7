// norm_layer_norm_shape_mismatch: layer_norm whose normalized_shape [|8L|] is not the input's last dim (7)
module Bad.NormLayerNormShapeMismatch

open TorchSharp

[<Kgen.Entry("float32[4,7]")>]
let norm_layer_norm_shape_mismatch =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.layer_norm(x, [| 8L |]) @>
