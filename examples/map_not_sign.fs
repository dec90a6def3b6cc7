// map_not_sign: not (...) and sign (int result, converted back with float32)
module Examples.MapNotSign

open TorchSharp
open Kgen

[<Kgen.Entry("float32[200]")>]
let map_not_sign =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> if not (v > 0.0f) then float32 (sign v) else v) x @>
