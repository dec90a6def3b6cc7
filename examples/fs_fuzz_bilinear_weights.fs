// fs_fuzz_bilinear_weights: bilinear / linear interpolation by a scale factor whose source index is not exact (1 / 2.5 in float32): PyTorch's CPU kernel keeps the source index and the weights in double and rounds only the weights to float32; rounding the index first moved a weight by an ulp of the index, times a neighbour difference (kgen fuzz seed 9, reduced)
module Examples.FsFuzzBilinearWeights

open TorchSharp

[<Kgen.Entry("float32[2,3,40,2], float32[2,3,40]")>]
let fs_fuzz_bilinear_weights =
    <@ fun (x: torch.Tensor) (s: torch.Tensor) ->
        torch.nn.functional.interpolate(x * 9.0f, scale_factor = [| 2.5; 1.0 |], mode = torch.InterpolationMode.Bilinear),
        torch.nn.functional.interpolate(s * 9.0f, scale_factor = [| 2.5 |], mode = torch.InterpolationMode.Linear),
        torch.nn.functional.interpolate(x * 9.0f, [| 57L; 2L |], mode = torch.InterpolationMode.Bilinear, align_corners = true) @>
