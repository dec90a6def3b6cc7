// div_rounding_none_f32: div with the default RoundingMode.None filled in (enum Value), divide with a Scalar
module Examples.DivRoundingNoneF32

open TorchSharp

[<Kgen.Entry("float32[200], float32[200]", NonZero = [| 1 |])>]
let div_rounding_none_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (x.div(y), torch.div(x, y), torch.divide(x, 2.0.ToScalar())) @>
