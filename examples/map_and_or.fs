// map_and_or: && and || (IfThenElse(a, b, false) / IfThenElse(a, true, b)) in a condition
module Examples.MapAndOr

open TorchSharp
open Kgen

[<Kgen.Entry("float32[500]")>]
let map_and_or =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> if v > -1.0f && v < 1.0f || v > 5.0f then 1.0f else 0.0f) x @>
