// chain_bf16_bias_gelu_cast: bfloat16 bias + gelu * 0.5 then cast to float32
module Examples.ChainBf16BiasGeluCast

open TorchSharp

let chain_bf16_bias_gelu_cast =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) -> ((x + b).gelu() * 0.5).to_type(torch.float32) @>
