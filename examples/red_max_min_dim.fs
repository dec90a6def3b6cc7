// red_max_min_dim: let struct (v, i) = x.max(1L) and torch.min(x, 0L, true): values and indices from one call, used in later arithmetic; float32 [67, 457] and int16 with ties
module Examples.RedMaxMinDim

open TorchSharp

[<Kgen.Entry("float32[67,457], int16[457,67]")>]
let red_max_min_dim =
    <@ fun (x: torch.Tensor) (n: torch.Tensor) ->
        let struct (v, i) = x.max(1L)
        let struct (w, j) = torch.min(x, 0L, true)
        let struct (u, k) = n.max(-1L)
        (v * 2.0f, i, w, j + 1L, u, k) @>
