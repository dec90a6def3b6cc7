// cast_float_methods_i32: float(), double(), half(), bfloat16() from int32
module Examples.CastFloatMethodsI32

open TorchSharp

[<Kgen.Entry("int32[100]")>]
let cast_float_methods_i32 =
    <@ fun (x: torch.Tensor) -> (x.float(), x.double(), x.half(), x.bfloat16()) @>
