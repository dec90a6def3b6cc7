// map_while_bisection: cube root by bisection: while with && and an if statement updating two mutables
module Examples.MapWhileBisection

open TorchSharp
open Kgen

[<Kgen.Entry("float32[256]")>]
let map_while_bisection =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            let t = abs v + 1.0f
            let mutable lo = 0.0f
            let mutable hi = t + 1.0f
            let mutable it = 0
            while hi - lo > 0.001f && it < 40 do
                let mid = (lo + hi) * 0.5f
                if mid * mid * mid < t then lo <- mid else hi <- mid
                it <- it + 1
            lo) x @>
