// bitwise_bool_u8: bitwise_not on bool (logical not) and uint8; bitwise_and / or on uint8
module Examples.BitwiseBoolU8

open TorchSharp

[<Kgen.Entry("bool[33], uint8[33], uint8[33]")>]
let bitwise_bool_u8 =
    <@ fun (p: torch.Tensor) (u: torch.Tensor) (v: torch.Tensor) ->
        (p.bitwise_not(), torch.bitwise_not(u), u.bitwise_and(v), torch.bitwise_or(u, v)) @>
