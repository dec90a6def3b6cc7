// cmp_tensor_i32: eq ne lt le gt ge, instance Tensor forms, on int32 (ties are common)
module Examples.CmpTensorI32

open TorchSharp

[<Kgen.Entry("int32[40,25], int32[40,25]")>]
let cmp_tensor_i32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (x.eq(y), x.ne(y), x.lt(y), x.le(y), x.gt(y), x.ge(y)) @>
