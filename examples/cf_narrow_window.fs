// cf_narrow_window: sliding-window sum with narrow: for t in 0 .. T - 3 do acc <- acc + x.narrow(0, t, 3)
module Examples.CfNarrowWindow

open TorchSharp

[<Kgen.Entry("float32[9,4]")>]
let cf_narrow_window =
    <@ fun (x: torch.Tensor) ->
        let mutable acc = torch.zeros_like(x.narrow(0L, 0L, 3L))
        for t in 0 .. int x.shape.[0] - 3 do
            acc <- acc + x.narrow(0L, int64 t, 3L)
        acc @>
