// conv_dtypes: float16 and bfloat16 convolutions accumulate in float32 and add the bias in float32, rounding once; float64 and int32 accumulate in their own type
module Examples.ConvDtypes

open TorchSharp

[<Kgen.Entry("float16[2,3,6,6], float16[4,3,3,3], float16[4], bfloat16[1,4,7,5], bfloat16[4,2,3,3], bfloat16[4]")>]
let conv_half =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) (y: torch.Tensor) (v: torch.Tensor) (c: torch.Tensor) ->
        torch.nn.functional.conv2d(x, w, b, padding = [| 1L |]),
        torch.nn.functional.conv2d(y, v, c, strides = [| 2L |], groups = 2L).relu() @>

[<Kgen.Entry("float64[2,3,5,6], float64[2,3,2,3], float64[2], int32[1,2,9], int32[3,2,3]")>]
let conv_wide =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) (i: torch.Tensor) (k: torch.Tensor) ->
        torch.nn.functional.conv2d(x, w, b, padding = [| 1L |], dilation = [| 2L |]),
        torch.nn.functional.conv1d(i, k, padding = 1L) @>
