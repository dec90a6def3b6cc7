// un_f16_ops: float16 tensor: abs * 2f, unary minus, exp (result float16)
module Examples.UnF16Ops

open TorchSharp

[<Kgen.Entry("float16[1000]")>]
let un_f16_ops =
    <@ fun (x: torch.Tensor) -> (x.abs() * 2.0f, -x, x.exp()) @>
