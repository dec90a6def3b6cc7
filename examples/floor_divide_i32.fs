// floor_divide_i32: floor_divide: int32 tensors (floors toward -inf) and float32 / Scalar
module Examples.FloorDivideI32

open TorchSharp

[<Kgen.Entry("int32[120], int32[120], float32[120]", NonZero = [| 1 |])>]
let floor_divide_i32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (z: torch.Tensor) ->
        (torch.floor_divide(x, y), x.floor_divide(y), z.floor_divide(2.5f.ToScalar())) @>
