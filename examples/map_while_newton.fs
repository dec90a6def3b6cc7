// map_while_newton: Newton iterations for sqrt until |x*x - a| <= 1e-4 a, with an iteration cap
module Examples.MapWhileNewton

open TorchSharp
open Kgen

[<Kgen.Entry("float32[512]")>]
let map_while_newton =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            let a = abs v + 1.0f
            let mutable g = a
            let mutable it = 0
            while abs (g * g - a) > 0.0001f * a && it < 50 do
                g <- 0.5f * (g + a / g)
                it <- it + 1
            g) x @>
