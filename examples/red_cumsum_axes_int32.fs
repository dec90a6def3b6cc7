// red_cumsum_axes_int32: the same on int32 (int64 scans; times 2.0f is float32)
module Examples.RedCumsumAxesInt32

open TorchSharp

[<Kgen.Entry("int32[13,67]")>]
let red_cumsum_axes_int32 =
    <@ fun (x: torch.Tensor) -> (x.cumsum(-1L), x.cumsum(0L), x.cumsum(-1L) * 2.0f) @>
