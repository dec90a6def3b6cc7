// clamp_scalar_f32: clamp with Scalar bounds (instance and static)
module Examples.ClampScalarF32

open TorchSharp

[<Kgen.Entry("float32[48,48]")>]
let clamp_scalar_f32 =
    <@ fun (x: torch.Tensor) ->
        (x.clamp((-1.0f).ToScalar(), 1.0f.ToScalar()),
         torch.clamp(x, (-2.0).ToScalar(), 2.0.ToScalar())) @>
