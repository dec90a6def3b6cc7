// map_lambda_arity: Kgen.Ops.map given a curried two-argument lambda (its result would be a function)
module Bad.MapLambdaArity

open TorchSharp
open Kgen

let map_lambda_arity =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: float32) -> v + 1.0f) x @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   Kgen.Ops.map given a curried two-argument lambda (its result would be a function)
// The F# it stands for:
//   <@ fun (x: torch.Tensor) -> Ops.map (fun (w: float32) (v: float32) -> v + 1.0f) x @>
