// mul_multiply_f64: mul / multiply: instance, static, Tensor and Scalar forms
module Examples.MulMultiplyF64

open TorchSharp

[<Kgen.Entry("float64[10,11], float64[10,11]")>]
let mul_multiply_f64 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (x.mul(y), torch.multiply(x, 0.25.ToScalar()), x.multiply(y), torch.mul(x, y)) @>
