// for_float_bounds: a for loop whose end is a float32 (F# only writes integer bounds: the document was edited); rejected naming the bound, not rounded
module Bad.ForFloatBounds

open TorchSharp
open Kgen

let for_float_bounds =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            let mutable acc = 0.0f
            for i in 1 .. 3 do
                acc <- acc + v
            acc) x @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   a for loop whose end is a float32 (F# only writes integer bounds: the document was edited); rejected naming the bound, not rounded
// The F# it stands for:
//   <@ fun (x: torch.Tensor) ->
//       Ops.map (fun (v: float32) ->
//           let mutable acc = 0.0f
//           for i in 1 .. 3.5f do acc <- acc + v
//           acc) x @>
