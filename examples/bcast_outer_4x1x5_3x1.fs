// bcast_outer_4x1x5_3x1: [4,1,5] * [3,1] -> [4,3,5]
module Examples.BcastOuter4x1x53x1

open TorchSharp

[<Kgen.Entry("float32[4,1,5], float32[3,1]")>]
let bcast_outer_4x1x5_3x1 =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a * b @>
