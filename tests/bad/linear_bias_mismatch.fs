// linear_bias_mismatch: a bias of 5 for a linear layer of 4 outputs (PyTorch's expand error)
module Bad.LinearBiasMismatch

open TorchSharp

[<Kgen.Entry("float32[2,3], float32[4,3], float32[5]")>]
let linear_bias_mismatch =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.linear(x, w, b) @>
