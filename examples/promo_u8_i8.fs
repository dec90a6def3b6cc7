// promo_u8_i8: uint8 + int8 -> int16
module Examples.PromoU8I8

open TorchSharp

let promo_u8_i8 =
    <@ fun (u: torch.Tensor) (s: torch.Tensor) -> u + s @>
