// div_rounding_trunc_i32: div(..., RoundingMode.trunc) on int32 (tensor and Scalar divisor)
// (TorchSharp 0.107's static torch.div(x, y, trunc) drops its rounding_mode and true-divides: kgen does what TorchSharp does)
module Examples.DivRoundingTruncI32

open TorchSharp

[<Kgen.Entry("int32[150], int32[150]", NonZero = [| 1 |])>]
let div_rounding_trunc_i32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (torch.div(x, y, torch.RoundingMode.trunc),
         x.div(2.5f.ToScalar(), rounding_mode = torch.RoundingMode.trunc)) @>
