// map_int_wrap_hash: int32 multiplication wraps (.NET unchecked): an FNV-like hash loop
module Examples.MapIntWrapHash

open TorchSharp
open Kgen

[<Kgen.Entry("int32[300]")>]
let map_int_wrap_hash =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: int) ->
            let mutable h = v
            for i in 0 .. 3 do
                h <- (h ^^^ i) * 16777619
            h) x @>
