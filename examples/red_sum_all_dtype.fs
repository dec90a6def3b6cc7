// red_sum_all_dtype: all-reduce sum(dtype): float32 summed as float64 (FieldGet and enum spellings); bfloat16 summed as is and as float32
module Examples.RedSumAllDtype

open TorchSharp

[<Kgen.Entry("float32[67,4097], bfloat16[1024]")>]
let red_sum_all_dtype =
    <@ fun (x: torch.Tensor) (g: torch.Tensor) ->
        (x.sum(torch.float64),
         torch.sum(x, torch.ScalarType.Float64),
         g.sum(),
         g.sum(torch.float32)) @>
