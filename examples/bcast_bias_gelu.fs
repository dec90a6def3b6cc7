// bcast_bias_gelu: [<ReflectedDefinition>] entry: gelu(x + b) with x [N,768] (symbolic N) and b [768]
module Examples.BcastBiasGelu

open TorchSharp

[<ReflectedDefinition>]
[<Kgen.Entry("float32[N,768], float32[768]")>]
let bcast_bias_gelu (x: torch.Tensor) (b: torch.Tensor) =
    (x + b).gelu()
