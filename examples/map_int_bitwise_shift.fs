// map_int_bitwise_shift: <<< >>> ^^^ &&& on int (.NET shifts), masked with 0xFF
module Examples.MapIntBitwiseShift

open TorchSharp
open Kgen

[<Kgen.Entry("int32[256]")>]
let map_int_bitwise_shift =
    <@ fun (x: torch.Tensor) -> Ops.map (fun (v: int) -> ((v <<< 3) ^^^ (v >>> 1)) &&& 255) x @>
