// map_f16_input: map over a float16 tensor with a float32 lambda: elements widen, result float32
module Examples.MapF16Input

open TorchSharp
open Kgen

[<Kgen.Entry("float16[500]")>]
let map_f16_input =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> v * v * 0.5f) x @>
