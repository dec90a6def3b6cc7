// map_int8_input_int_lambda: map over int8 with an int lambda: result int32 (v * v * v)
module Examples.MapInt8InputIntLambda

open TorchSharp
open Kgen

[<Kgen.Entry("int8[90]")>]
let map_int8_input_int_lambda =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: int) -> v * v * v) x @>
