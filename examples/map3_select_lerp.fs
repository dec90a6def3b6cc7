// map3_select_lerp: Kgen.Ops.map3 over bool, float32 and float32 tensors
module Examples.Map3SelectLerp

open TorchSharp
open Kgen

[<Kgen.Entry("bool[200], float32[200], float32[200]")>]
let map3_select_lerp =
    <@ fun (c: torch.Tensor) (x: torch.Tensor) (w: torch.Tensor) -> Ops.map3 (fun (c: bool) (a: float32) (w: float32) -> if c then a + w * (1.0f - a) else a) c x w @>
