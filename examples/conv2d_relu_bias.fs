// conv2d_relu_bias: relu(conv2d(x, w, b)) with stride 2 and padding 1 as ONE kernel: an implicit GEMM (the input read through IM2COL index arithmetic, zeros in the padding) with the bias and the activation in its store
module Examples.Conv2dReluBias

open TorchSharp

[<Kgen.Entry("float32[2,3,9,9], float32[8,3,3,3], float32[8]")>]
let conv2d_relu_bias =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.conv2d(x, w, b, strides = [| 2L |], padding = [| 1L |]).relu() @>
