// pw_u8_sub_wrap: uint8 arithmetic wraps: u - 3 and 5 - u (= u.negative().add(5))
module Examples.PwU8SubWrap

open TorchSharp

[<Kgen.Entry("uint8[40]")>]
let pw_u8_sub_wrap =
    <@ fun (u: torch.Tensor) -> (u - 3, 5 - u) @>
