// cast_to_scalartype_i16: Tensor.to(ScalarType.Float64 / Int8): enum Value arguments
module Examples.CastToScalartypeI16

open TorchSharp

[<Kgen.Entry("int16[100]")>]
let cast_to_scalartype_i16 =
    <@ fun (x: torch.Tensor) ->
        (x.``to``(torch.ScalarType.Float64), x.``to``(torch.ScalarType.Int8)) @>
