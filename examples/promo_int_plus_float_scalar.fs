// promo_int_plus_float_scalar: int32 tensor + 2.5f -> float32
module Examples.PromoIntPlusFloatScalar

open TorchSharp

[<Kgen.Entry("int32[100]")>]
let promo_int_plus_float_scalar =
    <@ fun (x: torch.Tensor) -> x + 2.5f @>
