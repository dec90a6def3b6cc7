// act_gelu_tanh: tanh-approximate GELU: GELU.Approximate enum (Tensor and functional), and Approximate.none
module Examples.ActGeluTanh

open TorchSharp
open TorchSharp.Modules

[<Kgen.Entry("float32[1024]")>]
let act_gelu_tanh =
    <@ fun (x: torch.Tensor) ->
        (x.gelu(GELU.Approximate.tanh),
         torch.nn.functional.gelu(x, GELU.Approximate.tanh),
         x.gelu(GELU.Approximate.none)) @>
