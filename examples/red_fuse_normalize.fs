// red_fuse_normalize: p / p.sum(-1L, true) with p = |x| + 0.5 (positive, so the sum is far from 0); x / |x|.amax(keepdim)
module Examples.RedFuseNormalize

open TorchSharp

[<Kgen.Entry("float32[1024,67]")>]
let red_fuse_normalize =
    <@ fun (x: torch.Tensor) ->
        let p = x.abs() + 0.5f
        (p / p.sum(-1L, true), x / x.abs().amax([| -1L |], true)) @>
