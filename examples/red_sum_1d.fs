// red_sum_1d: sum of 1-D inputs: [4097] dim 0 -> 0-dim, dim -1 keepdim -> [1], torch.sum(x, 0L); [1] dim 0
module Examples.RedSum1d

open TorchSharp

[<Kgen.Entry("float32[4097], float32[1]")>]
let red_sum_1d =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (x.sum(0L), x.sum(-1L, true), torch.sum(x, 0L), y.sum(0L)) @>
