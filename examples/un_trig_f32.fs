// un_trig_f32: sin, cos, tan in one expression
module Examples.UnTrigF32

open TorchSharp

[<Kgen.Entry("float32[8,128]")>]
let un_trig_f32 =
    <@ fun (x: torch.Tensor) -> torch.sin(x) + x.cos() * torch.tan(x * 0.1f) @>
