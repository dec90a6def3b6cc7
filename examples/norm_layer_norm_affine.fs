// norm_layer_norm_affine: nn.functional.layer_norm(x, [|1024L|], w, b) (eps = 1e-5 filled in) on [67, 1024]
module Examples.NormLayerNormAffine

open TorchSharp

[<Kgen.Entry("float32[67,1024], float32[1024], float32[1024]")>]
let norm_layer_norm_affine =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.layer_norm(x, [| 1024L |], w, b) @>
