// pw_mod_tt_i32: Tensor % Tensor is remainder (floored, sign of divisor) on int32
module Examples.PwModTtI32

open TorchSharp

let pw_mod_tt_i32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x % y @>
