// red_sum_f64: float64 sums of [2000, 7]: over the 7-wide rows, over the 2000 rows, all
module Examples.RedSumF64

open TorchSharp

[<Kgen.Entry("float64[2000,7]")>]
let red_sum_f64 =
    <@ fun (x: torch.Tensor) -> (x.sum(1L), x.sum([| 0L |]), x.sum()) @>
