// red_sum_int64: int64 sums of [7, 4097]: dim -1, [|0L|] keepdim, the two-dim form (all)
module Examples.RedSumInt64

open TorchSharp

[<Kgen.Entry("int64[7,4097]")>]
let red_sum_int64 =
    <@ fun (m: torch.Tensor) -> (m.sum(-1L), m.sum([| 0L |], true), m.sum(0L, 1L)) @>
