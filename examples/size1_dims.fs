// size1_dims: size-1 dims broadcast: [1,1,7] * [3,1,1] - [1] -> [3,1,7]
module Examples.Size1Dims

open TorchSharp

[<Kgen.Entry("float32[1,1,7], float32[3,1,1], float32[1]")>]
let size1_dims =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (z: torch.Tensor) -> x * y - z @>
