// size1_dims: size-1 dims broadcast: [1,1,7] * [3,1,1] - [1] -> [3,1,7]
module Examples.Size1Dims

open TorchSharp

let size1_dims =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (z: torch.Tensor) -> x * y - z @>
