// reflected_helper_gelu: a [<ReflectedDefinition>] helper (tanh GELU written out) called from the entry
module Examples.ReflectedHelperGelu

open TorchSharp

[<ReflectedDefinition>]
let geluTanh (x: torch.Tensor) =
    0.5f * x * (1.0f + torch.tanh(0.7978846f * (x + 0.044715f * x * x * x)))

[<Kgen.Entry("float32[32,128], float32[128]")>]
let reflected_helper_gelu =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) -> geluTanh (x + b) @>
