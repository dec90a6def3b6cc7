// bitwise_methods_i64: bitwise_and / or / xor / not methods on int64
module Examples.BitwiseMethodsI64

open TorchSharp

[<Kgen.Entry("int64[99], int64[99]")>]
let bitwise_methods_i64 =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.bitwise_xor(a.bitwise_and(b), torch.bitwise_or(a, b)).bitwise_not() @>
