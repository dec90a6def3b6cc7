// map_int_trunc_div_rem: .NET integer / truncates and % is the truncated remainder (unlike a tensor's %)
module Examples.MapIntTruncDivRem

open TorchSharp
open Kgen

[<Kgen.Entry("int32[200]")>]
let map_int_trunc_div_rem =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: int) -> v / 4 * 10 + v % 4) x @>
