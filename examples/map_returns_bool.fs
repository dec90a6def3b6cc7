// map_returns_bool: a lambda returning bool gives a bool tensor (&& inside)
module Examples.MapReturnsBool

open TorchSharp
open Kgen

[<Kgen.Entry("float32[333]")>]
let map_returns_bool =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> v > 0.5f && v < 4.0f) x @>
