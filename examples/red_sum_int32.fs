// red_sum_int32: int32 sums give int64 unless a dtype is given: [1024, 67] rows, rows as int32, all as float64, torch.sum
module Examples.RedSumInt32

open TorchSharp

[<Kgen.Entry("int32[1024,67]")>]
let red_sum_int32 =
    <@ fun (n: torch.Tensor) ->
        (n.sum(1L), n.sum(1L, false, torch.int32), n.sum(torch.float64), torch.sum(n)) @>
