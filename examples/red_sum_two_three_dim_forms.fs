// red_sum_two_three_dim_forms: sum(d0, d1, keepdim, type) and sum(d0, d1, d2, keepdim, type) on [7, 457, 7] (unordered and negative dims, enum dtype)
module Examples.RedSumTwoThreeDimForms

open TorchSharp

[<Kgen.Entry("float32[7,457,7]")>]
let red_sum_two_three_dim_forms =
    <@ fun (x: torch.Tensor) ->
        (x.sum(0L, 2L),
         x.sum(2L, 0L),
         x.sum(1L, -1L, true),
         x.sum(0L, 1L, 2L),
         x.sum(2L, 0L, 1L, true, torch.ScalarType.Float64)) @>
