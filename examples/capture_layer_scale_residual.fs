// capture_layer_scale_residual: res + gamma * gelu_tanh(x + b) with a captured gamma
module Examples.CaptureLayerScaleResidual

open TorchSharp
open TorchSharp.Modules

[<Kgen.Entry("float32[16,512], float32[512], float32[16,512], gamma=float32[512]")>]
let capture_layer_scale_residual (gamma: torch.Tensor) =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) (res: torch.Tensor) -> res + gamma * (x + b).gelu(GELU.Approximate.tanh) @>
