// norm_prim_mean_abs_dev: (x - x.mean([|-1L|], true)).abs().sum(-1L) * 2.0f: a centered absolute sum over rows of 4097
module Examples.NormPrimMeanAbsDev

open TorchSharp

[<Kgen.Entry("float32[67,4097]")>]
let norm_prim_mean_abs_dev =
    <@ fun (x: torch.Tensor) -> (x - x.mean([| -1L |], true)).abs().sum(-1L) * 2.0f @>
