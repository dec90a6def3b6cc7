// linear_weight_3d: linear with a 3-D weight (the weight is transposed with t(), which takes at most 2 dims)
module Bad.LinearWeight3d

open TorchSharp

[<Kgen.Entry("float32[2,3], float32[2,4,5]")>]
let linear_weight_3d =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.linear(x, w) @>
