// mm_matmul_vec_inner: matmul of a 1-D [3] by a [4,5] matrix: the inner sizes differ (the vector is taken as 1x3)
module Bad.MmMatmulVecInner

open TorchSharp

[<Kgen.Entry("float32[3], float32[4,5]")>]
let mm_matmul_vec_inner =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a.matmul(b) @>
