// pw_div_tt_f32: Tensor / Tensor (true division), size 1023
module Examples.PwDivTtF32

open TorchSharp

[<Kgen.Entry("float32[1023], float32[1023]", NonZero = [| 1 |])>]
let pw_div_tt_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x / y @>
