// pw_add_tt_f32: Tensor + Tensor: Operators.op_Addition<Tensor,Tensor,Tensor>
module Examples.PwAddTtF32

open TorchSharp

let pw_add_tt_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x + y @>
