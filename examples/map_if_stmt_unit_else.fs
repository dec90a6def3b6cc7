// map_if_stmt_unit_else: let mutable + if/then with a unit else (statement) + VarSet: abs
module Examples.MapIfStmtUnitElse

open TorchSharp
open Kgen

[<Kgen.Entry("float32[300]")>]
let map_if_stmt_unit_else =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: float32) ->
            let mutable r = v
            if r < 0.0f then r <- -r
            r) x @>
