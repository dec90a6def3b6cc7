// pw_i8_mul_wrap: int8 multiplication wraps (x * 20)
module Examples.PwI8MulWrap

open TorchSharp

[<Kgen.Entry("int8[64]")>]
let pw_i8_mul_wrap =
    <@ fun (x: torch.Tensor) -> x * 20 @>
