// map_for_const: for i in 1 .. 4 do (inclusive end) accumulating v / float32 i
module Examples.MapForConst

open TorchSharp
open Kgen

[<Kgen.Entry("float32[256]")>]
let map_for_const =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            let mutable acc = 0.0f
            for i in 1 .. 4 do
                acc <- acc + v / float32 i
            acc) x @>
