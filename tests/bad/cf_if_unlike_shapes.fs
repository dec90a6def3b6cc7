// cf_if_unlike_shapes: the branches of an if on a run-time condition give tensors of different shapes
module Bad.CfIfUnlikeShapes

open TorchSharp

[<Kgen.Entry("float32[4,5], bool")>]
let cf_if_unlike_shapes =
    <@ fun (x: torch.Tensor) (flag: bool) -> if flag then x else x.sum(0L) @>
