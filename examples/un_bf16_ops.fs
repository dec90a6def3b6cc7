// un_bf16_ops: bfloat16 tensor: tanh + sigmoid * 2.0 stays bfloat16
module Examples.UnBf16Ops

open TorchSharp

[<Kgen.Entry("bfloat16[16,64]")>]
let un_bf16_ops =
    <@ fun (x: torch.Tensor) -> x.tanh() + x.sigmoid() * 2.0 @>
