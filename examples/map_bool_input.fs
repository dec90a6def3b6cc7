// map_bool_input: map over a bool tensor: if b then 1.0f else -1.0f
module Examples.MapBoolInput

open TorchSharp
open Kgen

[<Kgen.Entry("bool[77]")>]
let map_bool_input =
    <@ fun (p: torch.Tensor) -> Ops.map (fun (b: bool) -> if b then 1.0f else -1.0f) p @>
