// red_fuse_epilogue: pointwise epilogues on a reduction's output shape: sum(-1L, false) * 0.5f, amax(...).sqrt(), amin(...).abs() + 1
module Examples.RedFuseEpilogue

open TorchSharp

[<Kgen.Entry("float32[457,67]")>]
let red_fuse_epilogue =
    <@ fun (x: torch.Tensor) ->
        (x.sum(-1L, false) * 0.5f, x.amax([| -1L |]).sqrt(), x.amin([| 0L |]).abs() + 1.0f) @>
