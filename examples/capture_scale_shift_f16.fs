// capture_scale_shift_f16: two captured float16 tensors: x * scale + shift
module Examples.CaptureScaleShiftF16

open TorchSharp

[<Kgen.Entry("float16[8,256], scale=float16[256], shift=float16[256]")>]
let capture_scale_shift_f16 (scale: torch.Tensor) (shift: torch.Tensor) =
    <@ fun (x: torch.Tensor) -> x * scale + shift @>
