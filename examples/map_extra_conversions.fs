// map_extra_conversions: single / double (ExtraTopLevelOperators) next to float32 / float (Operators)
module Examples.MapExtraConversions

open TorchSharp
open Kgen

[<Kgen.Entry("int32[100]")>]
let map_extra_conversions =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: int) -> double (single v) * 0.5 + float v * 2.0) x @>
