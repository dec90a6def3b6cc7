// scalar_param_f32: an F# float32 parameter used twice: x * s + s
module Examples.ScalarParamF32

open TorchSharp

[<Kgen.Entry("float32[100], float32")>]
let scalar_param_f32 =
    <@ fun (x: torch.Tensor) (s: float32) -> x * s + s @>
