// shift_u8: shifts on uint8 (left shift wraps in 8 bits), counts % 8
module Examples.ShiftU8

open TorchSharp

[<Kgen.Entry("uint8[3,41], uint8[3,41], uint8[3,41]")>]
let shift_u8 =
    <@ fun (u: torch.Tensor) (v: torch.Tensor) (w: torch.Tensor) -> torch.bitwise_left_shift(u, v % 8).bitwise_right_shift(w % 8) @>
