// un_square_reciprocal_i32: square keeps int32; reciprocal of int32 is float32
module Examples.UnSquareReciprocalI32

open TorchSharp

[<Kgen.Entry("int32[77]")>]
let un_square_reciprocal_i32 =
    <@ fun (x: torch.Tensor) -> (x.square(), torch.square(x), (x + 10).reciprocal()) @>
