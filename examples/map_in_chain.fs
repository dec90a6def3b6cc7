// map_in_chain: a map result used by tensor ops: relu(map (v*v - 1) x) + y
module Examples.MapInChain

open TorchSharp
open Kgen

[<Kgen.Entry("float32[64,64], float32[64,64]")>]
let map_in_chain =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> (Ops.map (fun (v: float32) -> v * v - 1.0f) x).relu() + y @>
