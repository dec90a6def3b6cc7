// mm_dtype_mismatch: matmul of float32 by float64: products do not promote (PyTorch: expected scalar type Float but found Double)
module Bad.MmDtypeMismatch

open TorchSharp

[<Kgen.Entry("float32[2,3], float64[3,4]")>]
let mm_dtype_mismatch =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a.matmul(b) @>
