// promo_f16_plus_f64_0dim: float16 [33] + float64 0-dim -> float16 (0-dim does not promote)
module Examples.PromoF16PlusF640dim

open TorchSharp

[<Kgen.Entry("float16[33], float64[]")>]
let promo_f16_plus_f64_0dim =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x + y @>
