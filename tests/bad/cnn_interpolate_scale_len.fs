// cnn_interpolate_scale_len: interpolate of a 4-D input with one scale factor (libtorch's C++ API wants one per spatial dim)
module Bad.CnnInterpolateScaleLen

open TorchSharp

[<Kgen.Entry("float32[2,3,4,4]")>]
let cnn_interpolate_scale_len =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.interpolate(x, scale_factor = [| 2.0 |]) @>
