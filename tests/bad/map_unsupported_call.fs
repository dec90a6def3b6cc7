// map_unsupported_call: a map lambda calling a member kgen cannot compile (System.Console.WriteLine)
module Bad.MapUnsupportedCall

open System
open TorchSharp
open Kgen

[<Kgen.Entry("float32[16]")>]
let map_unsupported_call =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            Console.WriteLine(v)
            v * 2.0f) x @>
