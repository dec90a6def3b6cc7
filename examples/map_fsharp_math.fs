// map_fsharp_math: F# Operators math: exp log sqrt abs sin cos tanh floor ceil round truncate max min pown ** atan2
module Examples.MapFsharpMath

open TorchSharp
open Kgen

[<Kgen.Entry("float32[256], float32[256]")>]
let map_fsharp_math =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (Ops.map2 (fun (a: float32) (b: float32) -> exp (a * 0.1f) + log (abs a + 1.0f) + sqrt (abs b) + sin a * cos b + tanh a) x y,
         Ops.map2 (fun (a: float32) (b: float32) -> floor a + ceil b + round a + truncate b) x y,
         Ops.map2 (fun (a: float32) (b: float32) -> max a b - min a b + pown (a * 0.5f) 3 + abs b ** 0.5f + atan2 b a) x y) @>
