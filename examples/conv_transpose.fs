// conv_transpose: conv_transpose2d / conv_transpose1d as the adjoint's implicit GEMM — the weight regrouped and its window flipped, the input read dilated by the stride — with groups, dilation and output_padding
module Examples.ConvTranspose

open TorchSharp

/// stride 2, padding 1, output_padding 1, two groups, bias
[<Kgen.Entry("float32[2,4,5,4], float32[4,3,3,3], float32[6]")>]
let conv_transpose2d_strided =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.conv_transpose2d(x, w, b, strides = [| 2L |], padding = [| 1L |], output_padding = [| 1L |], groups = 2L) @>

/// dilation 2, stride (1, 3), no bias
[<Kgen.Entry("float32[1,3,4,5], float32[3,2,2,3]")>]
let conv_transpose2d_dilated =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        torch.nn.functional.conv_transpose2d(x, w, strides = [| 1L; 3L |], dilation = [| 2L |]) @>

/// conv_transpose1d with stride 3 and padding 2, then tanh
[<Kgen.Entry("float32[2,3,7], float32[3,4,5], float32[4]")>]
let conv_transpose1d_tanh =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.conv_transpose1d(x, w, b, stride = 3L, padding = 2L).tanh() @>
