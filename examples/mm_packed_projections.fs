// mm_packed_projections: three projections of one input with adjacent row slices of one packed weight and bias (nn.MultiheadAttention's in_proj) run as one product (passes/merge_products.c), their consumers reading slices of its result; two slices with a gap between them stay two products; a projection without bias slices merges with its neighbour the same way
module Examples.MmPackedProjections

open TorchSharp

[<Kgen.Entry("float32[5,7,16], float32[24,16], float32[24], float32[24,16], float32[32,16]")>]
let mm_packed_projections =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) (w2: torch.Tensor) (w3: torch.Tensor) ->
        let q = torch.nn.functional.linear(x, w.narrow(0L, 0L, 8L), b.narrow(0L, 0L, 8L))
        let k = torch.nn.functional.linear(x, w.narrow(0L, 8L, 8L), b.narrow(0L, 8L, 8L))
        let v = torch.nn.functional.linear(x, w.narrow(0L, 16L, 8L), b.narrow(0L, 16L, 8L))
        let g1 = torch.nn.functional.linear(x, w2.narrow(0L, 0L, 8L))
        let g2 = torch.nn.functional.linear(x, w2.narrow(0L, 16L, 8L))
        let h1 = torch.nn.functional.linear(x, w3.narrow(0L, 0L, 16L))
        let h2 = torch.nn.functional.linear(x, w3.narrow(0L, 16L, 16L))
        (q * 0.5f * k + v.relu(), g1 - g2, h1.sum(-1L) + h2.amax(-1L)) @>
