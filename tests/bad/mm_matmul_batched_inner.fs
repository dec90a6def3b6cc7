// mm_matmul_batched_inner: batched matmul of [2,3,4] by [2,5,6]: the inner sizes 4 and 5 differ
module Bad.MmMatmulBatchedInner

open TorchSharp

[<Kgen.Entry("float32[2,3,4], float32[2,5,6]")>]
let mm_matmul_batched_inner =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.matmul(a, b) @>
