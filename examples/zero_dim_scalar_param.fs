// zero_dim_scalar_param: 0-dim float64 tensor times an F# float32 parameter plus an int literal
module Examples.ZeroDimScalarParam

open TorchSharp

[<Kgen.Entry("float64[], float32")>]
let zero_dim_scalar_param =
    <@ fun (x: torch.Tensor) (s: float32) -> x * s + 1 @>
