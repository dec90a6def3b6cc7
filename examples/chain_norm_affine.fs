// chain_norm_affine: normalization epilogue: (x - mean) * rstd * w + b with per-row mean / rstd [R,1]
module Examples.ChainNormAffine

open TorchSharp

[<Kgen.Entry("float32[24,384], float32[24,1], float32[24,1], float32[384], float32[384]")>]
let chain_norm_affine =
    <@ fun (x: torch.Tensor) (mean: torch.Tensor) (rstd: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> (x - mean) * rstd * w + b @>
