// map_not_sign: not (...) and sign (int result, converted back with float32)
module Examples.MapNotSign

open TorchSharp
open Kgen

let map_not_sign =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> if not (v > 0.0f) then float32 (sign v) else v) x @>
