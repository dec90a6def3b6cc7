// red_fuse_two_reductions: several reductions of one input in one tuple: (x.sum(-1L), x.amax([|-1L|]), x.mean([|-1L|], true))
module Examples.RedFuseTwoReductions

open TorchSharp

[<Kgen.Entry("float32[1024,67]")>]
let red_fuse_two_reductions =
    <@ fun (x: torch.Tensor) -> (x.sum(-1L), x.amax([| -1L |]), x.mean([| -1L |], true)) @>
