// red_sum_3d_each_axis: sum of [7, 67, 457] over each axis (0, 1, 2) and over -1 / -2 with keepdim
module Examples.RedSum3dEachAxis

open TorchSharp

[<Kgen.Entry("float32[7,67,457]")>]
let red_sum_3d_each_axis =
    <@ fun (x: torch.Tensor) ->
        (x.sum(0L), x.sum(1L), x.sum(2L), x.sum(-1L, true), x.sum(-2L, true)) @>
