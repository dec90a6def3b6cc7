// cf_while_invariant_read: a while whose condition reads two device values, one of them the same in every iteration: x's read moves before the loop (one sync), y's stays: while max|y| > max|x| * 0.25 do y <- y * 0.5
module Examples.CfWhileInvariantRead

open TorchSharp

[<Kgen.Entry("float32[6,5], float32[4,4]")>]
let cf_while_invariant_read =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        let mutable y = y
        while y.abs().max().item<float32>() > x.abs().max().item<float32>() * 0.25f do
            y <- y * 0.5f
        y @>
