// promo_mixed_float_tensors: int32 * float16 -> float16; float16 + bfloat16 -> float32; float32 + float64 -> float64
module Examples.PromoMixedFloatTensors

open TorchSharp

[<Kgen.Entry("int32[24], float16[24], bfloat16[24], float32[24], float64[24]")>]
let promo_mixed_float_tensors =
    <@ fun (n: torch.Tensor) (h: torch.Tensor) (g: torch.Tensor) (x: torch.Tensor) (y: torch.Tensor) ->
        (n * h, h + g, x + y) @>
