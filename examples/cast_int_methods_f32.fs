// cast_int_methods_f32: long(), int(), short(), char() (int8), byte() of |x|, bool() (non-zero)
module Examples.CastIntMethodsF32

open TorchSharp

[<Kgen.Entry("float32[100]")>]
let cast_int_methods_f32 =
    <@ fun (x: torch.Tensor) -> (x.long(), x.int(), x.short(), x.char(), x.abs().byte(), x.bool()) @>
