// norm_layer_norm_plain_eps: layer_norm without weight and bias (Value null) on [457, 457], with the default eps and with a named eps = 0.001
module Examples.NormLayerNormPlainEps

open TorchSharp

[<Kgen.Entry("float32[457,457]")>]
let norm_layer_norm_plain_eps =
    <@ fun (x: torch.Tensor) ->
        (torch.nn.functional.layer_norm(x, [| 457L |]),
         torch.nn.functional.layer_norm(x, [| 457L |], eps = 0.001)) @>
