// pw_scalar_left_f64: primitive op Tensor on the left: Int32 +, Int64 *, Single - (negative().add), Double / (reciprocal().mul)
module Examples.PwScalarLeftF64

open TorchSharp

[<Kgen.Entry("float64[50]")>]
let pw_scalar_left_f64 =
    <@ fun (x: torch.Tensor) -> (1 + x, 2L * x, 0.5f - x, 4.0 / (x.abs() + 1)) @>
