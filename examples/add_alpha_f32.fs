// add_alpha_f32: x.add(y, alpha) with alpha via Scalar.op_Implicit(Single)
module Examples.AddAlphaF32

open TorchSharp

[<Kgen.Entry("float32[64,100], float32[64,100]")>]
let add_alpha_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x.add(y, 0.5f) @>
