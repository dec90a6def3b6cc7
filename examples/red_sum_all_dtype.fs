// red_sum_all_dtype: all-reduce sum(dtype): float32 summed as float64 (FieldGet and enum spellings); bfloat16 summed as is and as float32
module Examples.RedSumAllDtype

open TorchSharp

let red_sum_all_dtype =
    <@ fun (x: torch.Tensor) (g: torch.Tensor) ->
        (x.sum(torch.float64),
         torch.sum(x, torch.ScalarType.Float64),
         g.sum(),
         g.sum(torch.float32)) @>
