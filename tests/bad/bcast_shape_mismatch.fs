// bcast_shape_mismatch: shapes [3,4] and [5] do not broadcast
module Bad.BcastShapeMismatch

open TorchSharp

[<Kgen.Entry("float32[3,4], float32[5]")>]
let bcast_shape_mismatch =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x + y @>
