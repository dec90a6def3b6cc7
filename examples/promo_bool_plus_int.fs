// promo_bool_plus_int: bool + 1 -> int64; bool + int32 tensor -> int32
module Examples.PromoBoolPlusInt

open TorchSharp

[<Kgen.Entry("bool[40], int32[40]")>]
let promo_bool_plus_int =
    <@ fun (p: torch.Tensor) (n: torch.Tensor) -> (p + 1, p + n) @>
