// cast_bf16_f16_roundtrip: bfloat16 -> float16 -> float32 casts and a float32 -> bfloat16 cast
module Examples.CastBf16F16Roundtrip

open TorchSharp

[<Kgen.Entry("bfloat16[64], float32[64]")>]
let cast_bf16_f16_roundtrip =
    <@ fun (g: torch.Tensor) (x: torch.Tensor) ->
        (g.to_type(torch.float16).float(), x.to_type(torch.bfloat16)) @>
