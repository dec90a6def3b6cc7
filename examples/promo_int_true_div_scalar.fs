// promo_int_true_div_scalar: int16 / 2 and int16 * 2.5 give float32
module Examples.PromoIntTrueDivScalar

open TorchSharp

[<Kgen.Entry("int16[70]")>]
let promo_int_true_div_scalar =
    <@ fun (x: torch.Tensor) -> (x / 2, x * 2.5) @>
