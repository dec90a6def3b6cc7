// cf_carried_shape_change: a tensor carried by a run-time loop must keep its dtype and shape (y becomes y.sum(0))
module Bad.CfCarriedShapeChange

open TorchSharp

[<Kgen.Entry("float32[4,5], int32")>]
let cf_carried_shape_change =
    <@ fun (x: torch.Tensor) (n: int) ->
        let mutable y = x
        for i in 1 .. n do
            y <- y.sum(0L)
        y @>
