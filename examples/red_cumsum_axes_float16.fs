// red_cumsum_axes_float16: the same on float16 (float64 accumulation, rounded once per element)
module Examples.RedCumsumAxesFloat16

open TorchSharp

[<Kgen.Entry("float16[13,67]")>]
let red_cumsum_axes_float16 =
    <@ fun (x: torch.Tensor) -> (x.cumsum(-1L), x.cumsum(0L), x.cumsum(-1L) * 2.0f) @>
