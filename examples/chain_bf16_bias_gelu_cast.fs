// chain_bf16_bias_gelu_cast: bfloat16 bias + gelu * 0.5 then cast to float32
module Examples.ChainBf16BiasGeluCast

open TorchSharp

[<Kgen.Entry("bfloat16[16,96], bfloat16[96]")>]
let chain_bf16_bias_gelu_cast =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) -> ((x + b).gelu() * 0.5).to_type(torch.float32) @>
