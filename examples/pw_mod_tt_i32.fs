// pw_mod_tt_i32: Tensor % Tensor is remainder (floored, sign of divisor) on int32
module Examples.PwModTtI32

open TorchSharp

[<Kgen.Entry("int32[67], int32[67]", NonZero = [| 1 |])>]
let pw_mod_tt_i32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x % y @>
