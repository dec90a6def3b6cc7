// map_int64_lambda: an int64 lambda: v * 1000000007L % 97L (truncated remainder)
module Examples.MapInt64Lambda

open TorchSharp
open Kgen

[<Kgen.Entry("int64[100]")>]
let map_int64_lambda =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: int64) -> v * 1000000007L % 97L) x @>
