// un_hyperbolic_f64: sinh, cosh, tanh on float64
module Examples.UnHyperbolicF64

open TorchSharp

[<Kgen.Entry("float64[6,50]")>]
let un_hyperbolic_f64 =
    <@ fun (x: torch.Tensor) -> (x.sinh(), torch.cosh(x), x.tanh(), torch.tanh(x)) @>
