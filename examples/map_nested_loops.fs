// map_nested_loops: nested for loops, the inner range starting at the outer counter
module Examples.MapNestedLoops

open TorchSharp
open Kgen

[<Kgen.Entry("float32[128]")>]
let map_nested_loops =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            let mutable s = 0.0f
            for i in 1 .. 3 do
                for j in i .. 3 do
                    s <- s + v * float32 (i * j)
            s) x @>
