// pw_mod_scalar_i16: Tensor % Int32 and % Int64 on int16 (floored remainder, dtype kept)
module Examples.PwModScalarI16

open TorchSharp

[<Kgen.Entry("int16[120]")>]
let pw_mod_scalar_i16 =
    <@ fun (x: torch.Tensor) -> (x % 4, x % -3L) @>
