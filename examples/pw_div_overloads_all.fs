// pw_div_overloads_all: / with Int32 / Int64 / Single / Double on both sides (scalar / tensor = reciprocal().mul)
module Examples.PwDivOverloadsAll

open TorchSharp

[<Kgen.Entry("float32[96]", NonZero = [| 0 |])>]
let pw_div_overloads_all =
    <@ fun (y: torch.Tensor) -> 2 / y / 3L + 2L / y / 0.5f + 0.25f / y / 1.5 + 2.0 / y / 4 @>
