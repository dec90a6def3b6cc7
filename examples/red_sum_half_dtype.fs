// red_sum_half_dtype: float16 [3, 4097] summed with an explicit dtype: float32 rows, float64 all-reduce, float16 (same dtype) keepdim
module Examples.RedSumHalfDtype

open TorchSharp

[<Kgen.Entry("float16[3,4097]")>]
let red_sum_half_dtype =
    <@ fun (x: torch.Tensor) ->
        (x.sum(1L, false, torch.float32), x.sum(torch.float64), x.sum(-1L, true, torch.float16)) @>
