// sub_subtract_f32: sub / subtract: instance, static, Tensor and Scalar forms
module Examples.SubSubtractF32

open TorchSharp

[<Kgen.Entry("float32[100], float32[100]")>]
let sub_subtract_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (torch.subtract(x.sub(y), 1.5f.ToScalar()),
         torch.sub(x, y),
         x.subtract(y),
         x.sub((2).ToScalar())) @>
