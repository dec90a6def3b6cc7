// conv_edge: PyTorch's convolution edge cases — a kernel larger than the input with padding, stride past the kernel, dilation, groups, depthwise (the direct schedule), 'same' with an even kernel, 1-D, unbatched and transposed-view inputs, a pad fused into the loads
module Examples.ConvEdge

open TorchSharp

/// a 5x5 kernel over a 3x3 input padded by 2 (every output reads the zero border)
[<Kgen.Entry("float32[1,2,3,3], float32[4,2,5,5], float32[4]")>]
let conv_kernel_past_input =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.conv2d(x, w, b, padding = [| 2L |]) @>

/// stride 3 past a 2x2 kernel, dilation 2, padding (1, 2), odd sizes
[<Kgen.Entry("float32[3,3,11,7], float32[5,3,2,2]")>]
let conv_stride_dilation =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        torch.nn.functional.conv2d(x, w, strides = [| 3L; 2L |], padding = [| 1L; 2L |], dilation = [| 2L |]) @>

/// two groups (a batch dim of the product), no bias
[<Kgen.Entry("float32[2,6,7,7], float32[4,3,3,3]")>]
let conv_groups =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        torch.nn.functional.conv2d(x, w, groups = 2L) @>

/// depthwise (groups = channels): the direct schedule, bias and relu6 in its store
[<Kgen.Entry("float32[2,8,9,9], float32[8,1,3,3], float32[8]")>]
let conv_depthwise =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.relu6(torch.nn.functional.conv2d(x, w, b, padding = [| 1L |], groups = 8L)) @>

/// conv1d with padding 'same' and an even kernel (PyTorch pads 1 left, 2 right)
[<Kgen.Entry("float32[2,4,10], float32[6,4,4], float32[6]")>]
let conv1d_same =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.conv1d_padding(x, w, b, padding = Padding.Same) @>

/// conv1d with stride 2 and dilation 3
[<Kgen.Entry("float32[3,2,17], float32[4,2,3]")>]
let conv1d_strided =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        torch.nn.functional.conv1d(x, w, stride = 2L, dilation = 3L) @>

/// an unbatched input [C, H, W]: convolved as [1, C, H, W] and viewed back
[<Kgen.Entry("float32[3,6,5], float32[4,3,3,3], float32[4]")>]
let conv_unbatched =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.conv2d(x, w, b, padding = [| 1L |]) @>

/// the input a transposed view (read in place through its strides) and the operands' producers inline
[<Kgen.Entry("float32[2,3,6,8], float32[4,3,3,3]")>]
let conv_view_prologue =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        torch.nn.functional.conv2d(x.transpose(2L, 3L).relu() * 2.0f, w * 0.5f, padding = [| 1L |]) @>

/// a reflect pad read by the convolution's loads (no padded copy)
[<Kgen.Entry("float32[1,2,5,6], float32[3,2,3,3]")>]
let conv_reflect_pad =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        torch.nn.functional.conv2d(torch.nn.functional.pad(x, [| 1L; 1L; 2L; 2L |], PaddingModes.Reflect), w) @>

/// batch norm folded: relu(conv2d(x, w, b) * s + t) with per-channel s, t is ONE kernel
[<Kgen.Entry("float32[2,3,8,8], float32[6,3,3,3], float32[6], float32[6,1,1], float32[6,1,1]")>]
let conv_scale_shift =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) (s: torch.Tensor) (t: torch.Tensor) ->
        (torch.nn.functional.conv2d(x, w, b, padding = [| 1L |]) * s + t).relu() @>
