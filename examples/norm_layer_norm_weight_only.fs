// norm_layer_norm_weight_only: layer_norm with only a weight (bias null), with a weight and a custom named eps = 1e-6, and with only a named bias, on rows of 67 ([2000, 67])
module Examples.NormLayerNormWeightOnly

open TorchSharp

[<Kgen.Entry("float32[2000,67], float32[67], float32[67]")>]
let norm_layer_norm_weight_only =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        (torch.nn.functional.layer_norm(x, [| 67L |], w),
         torch.nn.functional.layer_norm(x, [| 67L |], w, eps = 1e-06),
         torch.nn.functional.layer_norm(x, [| 67L |], bias = b)) @>
