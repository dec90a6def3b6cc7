// shift_i8_by_i16: int8 << int16 counts: promotes to int16; arithmetic right shift of negatives
module Examples.ShiftI8ByI16

open TorchSharp

[<Kgen.Entry("int8[80], int16[80]")>]
let shift_i8_by_i16 =
    <@ fun (x: torch.Tensor) (s: torch.Tensor) ->
        (x.bitwise_left_shift(s % 8), x.bitwise_right_shift(s % 8)) @>
