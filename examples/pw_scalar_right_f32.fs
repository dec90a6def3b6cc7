// pw_scalar_right_f32: Tensor op primitive on the right: + Int32, * Int64, - Single, / Double
module Examples.PwScalarRightF32

open TorchSharp

[<Kgen.Entry("float32[32,32]")>]
let pw_scalar_right_f32 =
    <@ fun (x: torch.Tensor) -> ((x + 1) * 2L - 0.5f) / 4.0 @>
