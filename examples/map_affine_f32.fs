// map_affine_f32: Kgen.Ops.map (fun v -> v * 2.0f + 1.0f): single-precision scalar arithmetic
module Examples.MapAffineF32

open TorchSharp
open Kgen

[<Kgen.Entry("float32[40,50]")>]
let map_affine_f32 =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> v * 2.0f + 1.0f) x @>
