// mm_edge_sizes: K = 0 (a product of zeros, then the epilogue adds c), M = 0 (nothing to launch), and 1x1 by 1x1
module Examples.MmEdgeSizes

open TorchSharp

[<Kgen.Entry("float32[3,0], float32[0,4], float32[3,4], float32[0,5], float32[5,2], float32[1,1], float32[1,1]")>]
let mm_edge_sizes =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) (d: torch.Tensor) (e: torch.Tensor) (f: torch.Tensor) (g: torch.Tensor) ->
        a.matmul(b) + c, d.mm(e), f.mm(g) @>
