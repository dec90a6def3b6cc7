// pw_neg_f32: unary minus: Operators.op_UnaryNegation<Tensor>, rank 3
module Examples.PwNegF32

open TorchSharp

[<Kgen.Entry("float32[3,5,7]")>]
let pw_neg_f32 =
    <@ fun (x: torch.Tensor) -> -x @>
