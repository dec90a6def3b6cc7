// mm_bool: matmul of bool tensors (PyTorch's CPU kernels are not implemented for Bool)
module Bad.MmBool

open TorchSharp

[<Kgen.Entry("bool[2,3], bool[3,4]")>]
let mm_bool =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.matmul(a, b) @>
