// varset_immutable: VarSet on a variable that is not mutable (vars[].mutable = false)
module Bad.VarsetImmutable

open TorchSharp
open Kgen

let varset_immutable =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            let mutable r = v
            r <- r * r
            r) x @>

// NOTE: the JSON document was edited after serialization to break one rule:
//   VarSet on a variable that is not mutable (vars[].mutable = false)
