// chain_f16_swiglu: float16 swish-GLU: silu(xg) * xu
module Examples.ChainF16Swiglu

open TorchSharp

[<Kgen.Entry("float16[32,128], float16[32,128]")>]
let chain_f16_swiglu =
    <@ fun (xg: torch.Tensor) (xu: torch.Tensor) -> xg.silu() * xu @>
