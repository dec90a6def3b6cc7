// red_sum_dims_array: sum(Int64[] dims, keepdim, type) on [67, 7, 67]: [|0L; 2L|] with and without keepdim, [|-1L; -2L|], [|1L|] as float64
module Examples.RedSumDimsArray

open TorchSharp

[<Kgen.Entry("float32[67,7,67]")>]
let red_sum_dims_array =
    <@ fun (x: torch.Tensor) ->
        (x.sum([| 0L; 2L |]),
         x.sum([| 0L; 2L |], true),
         x.sum([| -1L; -2L |]),
         x.sum([| 1L |], false, torch.float64)) @>
