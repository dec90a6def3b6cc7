// red_sum_small_ints: int8 / uint8 / int16 sums are int64 (no wrap); uint8 rows summed as int32
module Examples.RedSumSmallInts

open TorchSharp

[<Kgen.Entry("int8[457,67], uint8[67,457], int16[1,1024]")>]
let red_sum_small_ints =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) ->
        (a.sum(1L), b.sum(0L), c.sum(-1L, true), b.sum(1L, false, torch.int32), a.sum()) @>
