// conv_errors: convolution and pad calls PyTorch rejects; kgen must reject each at compile time with PyTorch's message, located at the F# call (tests/test_conv.c)
module Tests.ConvErrors

open TorchSharp

[<Kgen.Entry("float32[1,2,6,6], float32[3,2,3,3]")>]
let same_strided =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.conv2d_padding(x, w, strides = [| 2L |], padding = Padding.Same) @>

[<Kgen.Entry("float32[1,2,6,6], float32[3,2,3,3]")>]
let stride_zero =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.conv2d(x, w, strides = [| 0L |]) @>

[<Kgen.Entry("float32[1,2,6,6], float32[3,2,3,3]")>]
let padding_negative =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.conv2d(x, w, padding = [| -1L |]) @>

[<Kgen.Entry("float32[1,2,6], float32[3,2,3]")>]
let dilation_zero =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.conv1d(x, w, dilation = 0L) @>

[<Kgen.Entry("float32[1,2,6,6], float32[3,2,3,3]")>]
let groups_zero =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.conv2d(x, w, groups = 0L) @>

[<Kgen.Entry("float32[1,2,6,6], float32[3,2,3,3]")>]
let stride_three_values =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.conv2d(x, w, strides = [| 1L; 1L; 1L |]) @>

[<Kgen.Entry("float32[2,4,5,5], float32[4,3,3,3]")>]
let output_padding_too_big =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.conv_transpose2d(x, w, strides = [| 2L |], output_padding = [| 2L |]) @>

[<Kgen.Entry("float32[2,4,5,5], float32[4,3,3,3]")>]
let transposed_output_too_small =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.conv_transpose2d(x, w, padding = [| 5L |]) @>

[<Kgen.Entry("float32[1,2,3]")>]
let pad_reflect_past_input =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.pad(x, [| 3L; 3L |], PaddingModes.Reflect) @>

[<Kgen.Entry("float32[1,2,3]")>]
let pad_odd_length =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.pad(x, [| 1L; 1L; 1L |]) @>

[<Kgen.Entry("float32[1,2,3]")>]
let pad_too_long =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.pad(x, [| 1L; 1L; 1L; 1L; 1L; 1L; 1L; 1L |]) @>

[<Kgen.Entry("float32[1,2,3]")>]
let pad_circular_wraps =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.pad(x, [| 4L; 4L |], PaddingModes.Circular) @>

[<Kgen.Entry("float32[3]")>]
let pad_reflect_1d_input =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.pad(x, [| 1L; 1L |], PaddingModes.Reflect) @>
