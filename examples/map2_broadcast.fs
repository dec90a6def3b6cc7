// map2_broadcast: map2 broadcasts its inputs: [4,1] with [1,6] -> [4,6]
module Examples.Map2Broadcast

open TorchSharp
open Kgen

[<Kgen.Entry("float32[4,1], float32[1,6]")>]
let map2_broadcast =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> Ops.map2 (fun (a: float32) (b: float32) -> max a b - min a b) x y @>
