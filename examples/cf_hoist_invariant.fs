// cf_hoist_invariant: a loop whose body has work that does not change across iterations (softmax of w): computed once before the loop
module Examples.CfHoistInvariant

open TorchSharp

[<Kgen.Entry("float32[4,16], float32[16], int32")>]
let cf_hoist_invariant =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (n: int) ->
        let mutable y = x
        for i in 1 .. n do
            y <- y * w.softmax(0L) + 1.0f
        y @>
