// norm_layer_norm_affine: nn.functional.layer_norm(x, [|1024L|], w, b) (eps = 1e-5 filled in) on [67, 1024]
module Examples.NormLayerNormAffine

open TorchSharp

let norm_layer_norm_affine =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.layer_norm(x, [| 1024L |], w, b) @>
