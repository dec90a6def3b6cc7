// pw_neg_i8: unary minus on int8
module Examples.PwNegI8

open TorchSharp

[<Kgen.Entry("int8[100]")>]
let pw_neg_i8 =
    <@ fun (x: torch.Tensor) -> -x @>
