// map2_mixed_f32_i32: Kgen.Ops.map2 over float32 and int32 tensors (curried lambda)
module Examples.Map2MixedF32I32

open TorchSharp
open Kgen

[<Kgen.Entry("float32[128], int32[128]")>]
let map2_mixed_f32_i32 =
    <@ fun (x: torch.Tensor) (n: torch.Tensor) -> Ops.map2 (fun (a: float32) (k: int) -> if k > 0 then a * float32 k else a - 1.0f) x n @>
