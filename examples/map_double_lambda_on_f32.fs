// map_double_lambda_on_f32: a float (double) lambda over a float32 tensor: elements widen, result float64
module Examples.MapDoubleLambdaOnF32

open System
open TorchSharp
open Kgen

[<Kgen.Entry("float32[100]")>]
let map_double_lambda_on_f32 =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float) -> Math.Sqrt(Math.Abs(v))) x @>
