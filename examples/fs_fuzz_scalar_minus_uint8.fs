// fs_fuzz_scalar_minus_uint8: a number minus (or over) an integer tensor, as TorchSharp's operators compute it: s - x is x.negative().add(s), so the negation wraps in x's dtype before the float scalar promotes (1.5f - a uint8 9 is 248.5; int8 -128 negates to itself), and s / x is x.reciprocal().mul(s) (kgen fuzz seed 3378, reduced: an F# float32 parameter minus a uint8 tensor)
module Examples.FsFuzzScalarMinusUint8

open TorchSharp

[<Kgen.Entry("uint8[12], int8[12], float32")>]
let fs_fuzz_scalar_minus_uint8 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (s: float32) ->
        s - x, 1.5f - x, 2.5 - (y * 16), 3 - x, s / x, 2.0f / (y.abs() + 1) @>
