// cf_if_item_assign: if x.sum().item<float32>() > 0 then y <- relu y * 2 else y <- tanh y: a branch that assigns, on a condition read back from the device (a plan IF)
module Examples.CfIfItemAssign

open TorchSharp

[<Kgen.Entry("float32[3,17]")>]
let cf_if_item_assign =
    <@ fun (x: torch.Tensor) ->
        let mutable y = x
        if x.sum().item<float32>() > 0.0f then y <- y.relu() * 2.0f else y <- y.tanh()
        y @>
