// norm_layer_norm_last2: layer_norm over the last two dims of [7, 67, 457] (normalized_shape [|67L; 457L|]) with [67, 457] weight / bias and eps 1e-6 (positional), and without affine
module Examples.NormLayerNormLast2

open TorchSharp

[<Kgen.Entry("float32[7,67,457], float32[67,457], float32[67,457]")>]
let norm_layer_norm_last2 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        (torch.nn.functional.layer_norm(x, [| 67L; 457L |], w, b, 1e-06),
         torch.nn.functional.layer_norm(x, [| 67L; 457L |])) @>
