// mm_shape_mismatch: torch.mm of [2,3] by [4,4]: the inner sizes differ (PyTorch's message)
module Bad.MmShapeMismatch

open TorchSharp

[<Kgen.Entry("float32[2,3], float32[4,4]")>]
let mm_shape_mismatch =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.mm(a, b) @>
