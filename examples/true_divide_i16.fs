// true_divide_i16: true_divide on int16 gives float32 (instance, static, Scalar)
module Examples.TrueDivideI16

open TorchSharp

[<Kgen.Entry("int16[77], int16[77]", NonZero = [| 1 |])>]
let true_divide_i16 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (x.true_divide(y), torch.true_divide(x, y), x.true_divide((2).ToScalar())) @>
