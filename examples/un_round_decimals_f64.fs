// un_round_decimals_f64: round with decimals 2, 1 and -1 (Int64 argument)
module Examples.UnRoundDecimalsF64

open TorchSharp

[<Kgen.Entry("float64[150]")>]
let un_round_decimals_f64 =
    <@ fun (x: torch.Tensor) -> (x.round(2L), torch.round(x, 1L), (x * 10.0).round(-1L)) @>
