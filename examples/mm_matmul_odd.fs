// mm_matmul_odd: torch.matmul of float32 [67,33] by [33,70]: sizes that are no multiple of the 64x64 tile (two tiles each way, ragged edges)
module Examples.MmMatmulOdd

open TorchSharp

[<Kgen.Entry("float32[67,33], float32[33,70]")>]
let mm_matmul_odd =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.matmul(a, b) @>
