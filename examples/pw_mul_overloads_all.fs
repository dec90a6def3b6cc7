// pw_mul_overloads_all: * with Int32 / Int64 / Single / Double on both sides of an int64 tensor (float scalars -> float32)
module Examples.PwMulOverloadsAll

open TorchSharp

[<Kgen.Entry("int64[96]")>]
let pw_mul_overloads_all =
    <@ fun (x: torch.Tensor) -> 2 * x * 3L + 2L * x * 0.5f + 0.25f * x * 1.5 + 2.0 * x * 4 @>
