// pw_div_int_true_i64: int64 / int64 is true division: result float32
module Examples.PwDivIntTrueI64

open TorchSharp

[<Kgen.Entry("int64[7,13], int64[7,13]", NonZero = [| 1 |])>]
let pw_div_int_true_i64 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x / y @>
