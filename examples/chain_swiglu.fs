// chain_swiglu: [<ReflectedDefinition>] swish-GLU block: silu(xg + bg) * (xu + bu) * 0.5
module Examples.ChainSwiglu

open TorchSharp

[<ReflectedDefinition>]
[<Kgen.Entry("float32[32,256], float32[256], float32[32,256], float32[256]")>]
let chain_swiglu (xg: torch.Tensor) (bg: torch.Tensor) (xu: torch.Tensor) (bu: torch.Tensor) =
    let g = (xg + bg).silu()
    let u = xu + bu
    g * u * 0.5f
