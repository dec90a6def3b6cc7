// map_if_expr_leaky: if/then/else as an expression: a leaky relu
module Examples.MapIfExprLeaky

open TorchSharp
open Kgen

[<Kgen.Entry("float32[1000]")>]
let map_if_expr_leaky =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> if v > 0.0f then v else 0.1f * v) x @>
