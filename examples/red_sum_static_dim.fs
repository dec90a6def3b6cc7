// red_sum_static_dim: torch.sum(input, dim, keepdim, type) on [1024, 67]: dim 1, dim -1 keepdim, dim 0 as float64
module Examples.RedSumStaticDim

open TorchSharp

[<Kgen.Entry("float32[1024,67]")>]
let red_sum_static_dim =
    <@ fun (x: torch.Tensor) ->
        (torch.sum(x, 1L), torch.sum(x, -1L, true), torch.sum(x, 0L, false, torch.float64)) @>
