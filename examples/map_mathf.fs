// map_mathf: System.MathF functions: Exp, Tanh, Sqrt, Abs, Floor, Round (half to even), Pow
module Examples.MapMathf

open System
open TorchSharp
open Kgen

[<Kgen.Entry("float32[400]")>]
let map_mathf =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> MathF.Exp(-v * v) + MathF.Tanh(v) * MathF.Sqrt(MathF.Abs(v)) + MathF.Floor(v) - MathF.Round(v) + MathF.Pow(MathF.Abs(v), 0.5f)) x @>
