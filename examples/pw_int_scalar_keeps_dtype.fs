// pw_int_scalar_keeps_dtype: int32 tensor * Int32 + Int64 scalar stays int32 (scalars do not promote)
module Examples.PwIntScalarKeepsDtype

open TorchSharp

[<Kgen.Entry("int32[10,10]")>]
let pw_int_scalar_keeps_dtype =
    <@ fun (x: torch.Tensor) -> x * 3 + 7L @>
