// cast_type_method_f64: Tensor.type(ScalarType) (an F# keyword: x.``type``(...))
module Examples.CastTypeMethodF64

open TorchSharp

[<Kgen.Entry("float64[60]")>]
let cast_type_method_f64 =
    <@ fun (x: torch.Tensor) ->
        (x.``type``(torch.ScalarType.Int64), x.``type``(torch.ScalarType.Float32)) @>
