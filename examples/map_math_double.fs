// map_math_double: System.Math on float64 elements: a normal density plus log1p(|v|)
module Examples.MapMathDouble

open System
open TorchSharp
open Kgen

[<Kgen.Entry("float64[300]")>]
let map_math_double =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float) -> Math.Exp(-v * v / 2.0) / Math.Sqrt(6.283185307179586) + Math.Log(Math.Abs(v) + 1.0)) x @>
