// capture_weight_mul: a captured tensor w (ValueWithName, opaque) used as an input
module Examples.CaptureWeightMul

open TorchSharp

[<Kgen.Entry("float32[16,768], w=float32[768]")>]
let capture_weight_mul (w: torch.Tensor) =
    <@ fun (x: torch.Tensor) -> x * w @>
