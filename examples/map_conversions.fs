// map_conversions: int (v * 2.5f) truncates; float / float32 / int64 conversions; a float result gives float64
module Examples.MapConversions

open TorchSharp
open Kgen

[<Kgen.Entry("float32[300]")>]
let map_conversions =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> float (int (v * 2.5f)) + float v * 0.5 + float (int64 v * 3L)) x @>
