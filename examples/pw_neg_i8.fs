// pw_neg_i8: unary minus on int8
module Examples.PwNegI8

open TorchSharp

let pw_neg_i8 =
    <@ fun (x: torch.Tensor) -> -x @>
