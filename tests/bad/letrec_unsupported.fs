// letrec_unsupported: let rec inside a map lambda (LetRecursive) is not supported
module Bad.LetrecUnsupported

open TorchSharp
open Kgen

let letrec_unsupported =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> v * 2.0f) x @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   let rec inside a map lambda (LetRecursive) is not supported
// The F# it stands for:
//   <@ fun (x: torch.Tensor) ->
//       Ops.map (fun (v: float32) ->
//           let rec fact n = if n <= 1 then 1 else n * fact (n - 1)
//           v * 2.0f) x @>
