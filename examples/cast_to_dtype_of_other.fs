// cast_to_dtype_of_other: y.to_type(x.dtype): the dtype property (PropertyGet get_dtype)
module Examples.CastToDtypeOfOther

open TorchSharp

[<Kgen.Entry("float16[50], int32[50]")>]
let cast_to_dtype_of_other =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> y.to_type(x.dtype) + x @>
