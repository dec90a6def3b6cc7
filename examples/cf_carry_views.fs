// cf_carry_views: a loop that only moves a view and counts: last <- x.[t] (the carried tensor is a view of the input, no copy, no kernel in the loop) and s <- s + t (host arithmetic); then last * float32 s
module Examples.CfCarryViews

open TorchSharp

[<Kgen.Entry("float32[6,4]")>]
let cf_carry_views =
    <@ fun (x: torch.Tensor) ->
        let mutable s = 0
        let mutable last = x.[0L]
        for t in 0 .. int x.shape.[0] - 1 do
            s <- s + t
            last <- x.[int64 t]
        last * float32 s @>
