// cf_if_shapes: if flag then x.sum(0) else x.amax(0) * 0.5: unlike computations chosen on a bool parameter (a plan IF: only the taken branch runs)
module Examples.CfIfShapes

open TorchSharp

[<Kgen.Entry("float32[5,8], bool")>]
let cf_if_shapes =
    <@ fun (x: torch.Tensor) (flag: bool) ->
        let mutable r = x.sum(0L)
        if flag then () else r <- x.amax([| 0L |]) * 0.5f
        r @>
