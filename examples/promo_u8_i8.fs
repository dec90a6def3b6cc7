// promo_u8_i8: uint8 + int8 -> int16
module Examples.PromoU8I8

open TorchSharp

[<Kgen.Entry("uint8[60], int8[60]")>]
let promo_u8_i8 =
    <@ fun (u: torch.Tensor) (s: torch.Tensor) -> u + s @>
