// cnn_upsample_bilinear: bilinear upsampling x2 of a feature map
module Perf.CnnUpsampleBilinear

open TorchSharp

[<Kgen.Entry("float32[4,32,28,28]")>]
let cnn_upsample_bilinear =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.interpolate(x, scale_factor = [| 2.0; 2.0 |], mode = torch.InterpolationMode.Bilinear) @>
