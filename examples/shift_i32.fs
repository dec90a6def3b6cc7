// shift_i32: bitwise_left_shift / right_shift on int32, counts s % 8 in [0, 8)
module Examples.ShiftI32

open TorchSharp

[<Kgen.Entry("int32[257], int32[257]")>]
let shift_i32 =
    <@ fun (x: torch.Tensor) (s: torch.Tensor) ->
        (x.bitwise_left_shift(s % 8), torch.bitwise_right_shift(x, s % 8)) @>
