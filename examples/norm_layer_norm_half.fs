// norm_layer_norm_half: layer_norm of float16 [67, 1024] with float16 weight / bias and of bfloat16 [457, 67] with a bfloat16 weight (statistics in float32, result in the input dtype)
module Examples.NormLayerNormHalf

open TorchSharp

[<Kgen.Entry("float16[67,1024], float16[1024], float16[1024], bfloat16[457,67], bfloat16[67]")>]
let norm_layer_norm_half =
    <@ fun (h: torch.Tensor) (wh: torch.Tensor) (bh: torch.Tensor) (g: torch.Tensor) (wg: torch.Tensor) ->
        (torch.nn.functional.layer_norm(h, [| 1024L |], wh, bh),
         torch.nn.functional.layer_norm(g, [| 67L |], wg)) @>
