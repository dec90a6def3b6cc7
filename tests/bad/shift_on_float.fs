// shift_on_float: bitwise_left_shift on float32 tensors
module Bad.ShiftOnFloat

open TorchSharp

[<Kgen.Entry("float32[16], float32[16]")>]
let shift_on_float =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x.bitwise_left_shift(y) @>
