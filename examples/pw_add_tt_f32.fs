// pw_add_tt_f32: Tensor + Tensor: Operators.op_Addition<Tensor,Tensor,Tensor>
module Examples.PwAddTtF32

open TorchSharp

[<Kgen.Entry("float32[257,67], float32[257,67]")>]
let pw_add_tt_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x + y @>
