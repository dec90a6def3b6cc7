// pw_mul_tt_i32: Tensor * Tensor on int32
module Examples.PwMulTtI32

open TorchSharp

[<Kgen.Entry("int32[64,33], int32[64,33]")>]
let pw_mul_tt_i32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x * y @>
