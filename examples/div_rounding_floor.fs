// div_rounding_floor: div(..., RoundingMode.floor) on float32 (named argument) and divide on int64
// (TorchSharp 0.107's static torch.divide(n, 3, floor) drops its rounding_mode and true-divides: kgen does what TorchSharp does)
module Examples.DivRoundingFloor

open TorchSharp

[<Kgen.Entry("float32[90], float32[90], int64[90]", NonZero = [| 1 |])>]
let div_rounding_floor =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (n: torch.Tensor) ->
        (x.div(y, rounding_mode = torch.RoundingMode.floor),
         torch.divide(n, (3).ToScalar(), torch.RoundingMode.floor)) @>
