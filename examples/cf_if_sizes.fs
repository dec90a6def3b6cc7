// cf_if_sizes: conditions on sizes known only at run time (x is [N, 4]): numel(), dim() and x.shape.[0] are host values (SIZE steps, host arithmetic); an if that assigns on them is a plan IF, a pure one a select
module Examples.CfIfSizes

open TorchSharp

[<Kgen.Entry("float32[N,4]")>]
let cf_if_sizes =
    <@ fun (x: torch.Tensor) ->
        let mutable y = x
        if x.numel() > 12L && x.dim() = 2L then y <- y.relu() + float32 x.shape.[0]
        if x.shape.[0] > 100L then y * 2.0f else y - 1.0f @>
