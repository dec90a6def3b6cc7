// red_fuse_map_sum: a Kgen.Ops.map lambda (if / else per element) feeding a row sum on [1024, 67]
module Examples.RedFuseMapSum

open TorchSharp
open Kgen

[<Kgen.Entry("float32[1024,67]")>]
let red_fuse_map_sum =
    <@ fun (x: torch.Tensor) -> (Ops.map (fun (v: float32) -> if v > 0.0f then v * v else 0.5f * v) x).sum(1L) @>
