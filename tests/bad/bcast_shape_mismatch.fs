// bcast_shape_mismatch: shapes [3,4] and [5] do not broadcast
module Bad.BcastShapeMismatch

open TorchSharp

let bcast_shape_mismatch =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x + y @>
