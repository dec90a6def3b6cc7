// pw_neg_f32: unary minus: Operators.op_UnaryNegation<Tensor>, rank 3
module Examples.PwNegF32

open TorchSharp

let pw_neg_f32 =
    <@ fun (x: torch.Tensor) -> -x @>
