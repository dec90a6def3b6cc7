// pw_mod_scalar_f32: Tensor % Single and Tensor % Double: remainder with a scalar
module Examples.PwModScalarF32

open TorchSharp

[<Kgen.Entry("float32[300]")>]
let pw_mod_scalar_f32 =
    <@ fun (x: torch.Tensor) -> (x % 2.5f, x % -3.0) @>
