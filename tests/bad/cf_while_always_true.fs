// cf_while_always_true: a while loop whose condition is the constant true never ends
module Bad.CfWhileAlwaysTrue

open TorchSharp

[<Kgen.Entry("float32[4]")>]
let cf_while_always_true =
    <@ fun (x: torch.Tensor) ->
        let mutable y = x
        while true do
            y <- y * 2.0f
        y @>
