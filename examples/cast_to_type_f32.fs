// cast_to_type_f32: to_type(torch.int32 / int8 / float16): float -> int truncates toward zero
module Examples.CastToTypeF32

open TorchSharp

[<Kgen.Entry("float32[256]")>]
let cast_to_type_f32 =
    <@ fun (x: torch.Tensor) ->
        (x.to_type(torch.int32), x.to_type(torch.int8), x.to_type(torch.float16)) @>
