// mm_matmul_bcast: matmul's broadcast batch dims: [2,1,4,3] by [5,3,2] is [2,5,4,2] (the size-1 batch dim read at stride 0)
module Examples.MmMatmulBcast

open TorchSharp

[<Kgen.Entry("float32[2,1,4,3], float32[5,3,2]")>]
let mm_matmul_bcast =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a.matmul(b) @>
