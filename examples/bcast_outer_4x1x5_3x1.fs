// bcast_outer_4x1x5_3x1: [4,1,5] * [3,1] -> [4,3,5]
module Examples.BcastOuter4x1x53x1

open TorchSharp

let bcast_outer_4x1x5_3x1 =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a * b @>
