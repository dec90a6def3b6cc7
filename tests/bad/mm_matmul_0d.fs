// mm_matmul_0d: matmul of a 0-D tensor (PyTorch: both arguments need to be at least 1D)
module Bad.MmMatmul0d

open TorchSharp

[<Kgen.Entry("float32[2,2]")>]
let mm_matmul_0d =
    <@ fun (a: torch.Tensor) -> torch.matmul(torch.tensor(2.0f), a) @>
