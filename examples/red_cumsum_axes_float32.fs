// red_cumsum_axes_float32: `x.cumsum(-1L)`, `x.cumsum(0L)` and `x.cumsum(-1L) * 2.0f` on float32 [13, 67]
module Examples.RedCumsumAxesFloat32

open TorchSharp

[<Kgen.Entry("float32[13,67]")>]
let red_cumsum_axes_float32 =
    <@ fun (x: torch.Tensor) -> (x.cumsum(-1L), x.cumsum(0L), x.cumsum(-1L) * 2.0f) @>
