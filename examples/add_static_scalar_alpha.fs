// add_static_scalar_alpha: torch.add(Tensor, Scalar, Scalar) and torch.add(Tensor, Tensor) on float64
module Examples.AddStaticScalarAlpha

open TorchSharp

[<Kgen.Entry("float64[20,30], float64[30]")>]
let add_static_scalar_alpha =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (torch.add(x, 2.0f.ToScalar(), 3.0f.ToScalar()), torch.add(x, y)) @>
