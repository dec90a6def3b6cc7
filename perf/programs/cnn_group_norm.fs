// cnn_group_norm: group_norm with 8 groups and silu (statistics, then the normalization)
module Perf.CnnGroupNorm

open TorchSharp

[<Kgen.Entry("float32[8,64,28,28], float32[64], float32[64]")>]
let cnn_group_norm =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.group_norm(x, 8L, w, b).silu() @>
