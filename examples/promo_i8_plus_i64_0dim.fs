// promo_i8_plus_i64_0dim: int8 [50] + int64 0-dim -> int8
module Examples.PromoI8PlusI640dim

open TorchSharp

[<Kgen.Entry("int8[50], int64[]")>]
let promo_i8_plus_i64_0dim =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x + y @>
