// mm_matmul_mat_vec: matmul of a [3,4] matrix by a 1-D [5]: the inner sizes differ (PyTorch's size mismatch message)
module Bad.MmMatmulMatVec

open TorchSharp

[<Kgen.Entry("float32[3,4], float32[5]")>]
let mm_matmul_mat_vec =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a.matmul(b) @>
