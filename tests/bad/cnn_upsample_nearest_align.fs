// cnn_upsample_nearest_align: upsample_nearest passes align_corners, which libtorch rejects for nearest (TorchSharp raises too)
module Bad.CnnUpsampleNearestAlign

open TorchSharp

[<Kgen.Entry("float32[2,3,4,4]")>]
let cnn_upsample_nearest_align =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.upsample_nearest(x, scale_factor = [| 2.0; 2.0 |]) @>
