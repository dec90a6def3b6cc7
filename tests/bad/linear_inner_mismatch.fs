// linear_inner_mismatch: linear of a [2,3] input by a [4,5] weight: in_features 3 and 5 differ
module Bad.LinearInnerMismatch

open TorchSharp

[<Kgen.Entry("float32[2,3], float32[4,5]")>]
let linear_inner_mismatch =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.linear(x, w) @>
