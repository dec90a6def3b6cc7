// bcast_bias_gelu: [<ReflectedDefinition>] entry: gelu(x + b) with x [N,768] (symbolic N) and b [768]
module Examples.BcastBiasGelu

open TorchSharp

[<ReflectedDefinition>]
let bcast_bias_gelu (x: torch.Tensor) (b: torch.Tensor) =
    (x + b).gelu()
