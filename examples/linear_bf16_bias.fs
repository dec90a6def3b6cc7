// linear_bf16_bias: a bfloat16 linear with bias: the product and the bias add in float32, rounded once; cast to float32 in the same kernel
module Examples.LinearBf16Bias

open TorchSharp

[<Kgen.Entry("bfloat16[6,20], bfloat16[12,20], bfloat16[12]")>]
let linear_bf16_bias =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        let y = torch.nn.functional.linear(x, w, b)
        y, y.float() * 0.5f @>
