// map_let_shadow_sequential: shadowed lets and a mutable updated in a sequence inside a lambda
module Examples.MapLetShadowSequential

open TorchSharp
open Kgen

[<Kgen.Entry("float32[150]")>]
let map_let_shadow_sequential =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            let a = v * 2.0f
            let a = a + 1.0f
            let mutable r = a
            r <- r * r
            r <- r - a
            r) x @>
