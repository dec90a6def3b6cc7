// red_sum_dim_2d: sum(dim, keepdim) of 2-D inputs: last axis of [3, 4097] (dim 1, dim -1 keepdim, named keepdim), leading strided axis of [457, 67] (dim 0, dim -2 keepdim) and [2000, 7]
module Examples.RedSumDim2d

open TorchSharp

[<Kgen.Entry("float32[3,4097], float32[457,67], float32[2000,7]")>]
let red_sum_dim_2d =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (z: torch.Tensor) ->
        (x.sum(1L),
         x.sum(-1L, true),
         x.sum(1L, keepdim = false),
         y.sum(0L),
         y.sum(-2L, true),
         z.sum(0L)) @>
