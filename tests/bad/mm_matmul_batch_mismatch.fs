// mm_matmul_batch_mismatch: matmul's batch dims 5 and 7 do not broadcast
module Bad.MmMatmulBatchMismatch

open TorchSharp

[<Kgen.Entry("float32[5,2,3], float32[7,3,4]")>]
let mm_matmul_batch_mismatch =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.matmul(a, b) @>
