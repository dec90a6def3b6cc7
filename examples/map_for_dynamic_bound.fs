// map_for_dynamic_bound: a for loop whose bound comes from the element: for i in 0 .. int (abs v) (int result)
module Examples.MapForDynamicBound

open TorchSharp
open Kgen

[<Kgen.Entry("float32[20,20]")>]
let map_for_dynamic_bound =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            let mutable s = 0
            for i in 0 .. int (abs v) do
                s <- s + i * i
            s) x @>
