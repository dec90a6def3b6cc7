// chain_norm_affine: normalization epilogue: (x - mean) * rstd * w + b with per-row mean / rstd [R,1]
module Examples.ChainNormAffine

open TorchSharp

let chain_norm_affine =
    <@ fun (x: torch.Tensor) (mean: torch.Tensor) (rstd: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> (x - mean) * rstd * w + b @>
