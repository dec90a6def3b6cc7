// red_fuse_prologue_affine: a pointwise prologue feeding a row sum: (x * 2.0f + b).sum(-1L), b [1024] broadcast over rows
module Examples.RedFusePrologueAffine

open TorchSharp

[<Kgen.Entry("float32[67,1024], float32[1024]")>]
let red_fuse_prologue_affine =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) -> (x * 2.0f + b).sum(-1L) @>
