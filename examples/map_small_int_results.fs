// map_small_int_results: byte / int16 / sbyte conversions wrap (unchecked): uint8, int16 and int8 results
module Examples.MapSmallIntResults

open TorchSharp
open Kgen

[<Kgen.Entry("int32[128]")>]
let map_small_int_results =
    <@ fun (x: torch.Tensor) ->
        (Ops.map (fun (v: int) -> byte (v * 37)) x,
         Ops.map (fun (v: int) -> int16 (v * 5000)) x,
         Ops.map (fun (v: int) -> sbyte (v * 20)) x) @>
