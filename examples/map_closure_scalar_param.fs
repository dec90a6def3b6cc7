// map_closure_scalar_param: a map lambda closing over the entry's float32 parameter s
module Examples.MapClosureScalarParam

open TorchSharp
open Kgen

[<Kgen.Entry("float32[100], float32")>]
let map_closure_scalar_param =
    <@ fun (x: torch.Tensor) (s: float32) -> Ops.map (fun (v: float32) -> if v > s then v - s else 0.0f) x @>
