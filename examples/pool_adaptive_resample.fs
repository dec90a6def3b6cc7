// pool_adaptive_resample: adaptive avg / max pooling to sizes that do not divide the input (and to 1: a row reduction), interpolate nearest and bilinear (align_corners both ways, size and scale_factor), upsample_bilinear, pixel_shuffle and pixel_unshuffle
module Examples.PoolAdaptiveResample

open TorchSharp

[<Kgen.Entry("float32[2,3,7,5], float32[2,8,6,4], float32[2,3,9]")>]
let pool_adaptive_resample =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (s: torch.Tensor) ->
        (torch.nn.functional.adaptive_avg_pool2d(x, [| 3L; 4L |]),
         torch.nn.functional.adaptive_max_pool2d(x.neg(), [| 4L; 2L |]),
         torch.nn.functional.adaptive_avg_pool2d(x, 1L).flatten(1L),
         torch.nn.functional.adaptive_avg_pool1d(s, 4L) + torch.nn.functional.adaptive_max_pool1d(s, 4L),
         torch.nn.functional.interpolate(x, [| 10L; 6L |]),
         torch.nn.functional.interpolate(x, scale_factor = [| 1.5; 2.0 |]),
         torch.nn.functional.interpolate(x, [| 5L; 9L |], mode = torch.InterpolationMode.Bilinear),
         torch.nn.functional.interpolate(x, [| 11L; 3L |], mode = torch.InterpolationMode.Bilinear, align_corners = true),
         torch.nn.functional.upsample_bilinear(x, scale_factor = [| 2.0; 1.7 |]),
         torch.nn.functional.interpolate(s, scale_factor = [| 2.5 |], mode = torch.InterpolationMode.Linear),
         torch.nn.functional.pixel_shuffle(y, 2L),
         torch.nn.functional.pixel_unshuffle(y, 2L)) @>
