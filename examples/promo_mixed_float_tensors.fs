// promo_mixed_float_tensors: int32 * float16 -> float16; float16 + bfloat16 -> float32; float32 + float64 -> float64
module Examples.PromoMixedFloatTensors

open TorchSharp

let promo_mixed_float_tensors =
    <@ fun (n: torch.Tensor) (h: torch.Tensor) (g: torch.Tensor) (x: torch.Tensor) (y: torch.Tensor) ->
        (n * h, h + g, x + y) @>
