// red_sum_float_to_int_dtype: sum(dtype = int64 / int32) of float32: every element is converted (truncated) first, then summed
module Examples.RedSumFloatToIntDtype

open TorchSharp

[<Kgen.Entry("float32[67,457]")>]
let red_sum_float_to_int_dtype =
    <@ fun (x: torch.Tensor) -> (x.sum(1L, false, torch.int64), x.sum(torch.ScalarType.Int32)) @>
