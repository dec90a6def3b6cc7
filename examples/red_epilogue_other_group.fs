// red_epilogue_other_group: an epilogue over two row groups: x.sum(-1L) + y.amax([|-1L|]) * 2 with x [67, 33] and y [67, 45] (the sum crosses kernels through a temporary)
module Examples.RedEpilogueOtherGroup

open TorchSharp

[<Kgen.Entry("float32[67,33], float32[67,45]")>]
let red_epilogue_other_group =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (x.sum(-1L) + y.amax([| -1L |]) * 2.0f, x.logsumexp(-1L) - y.mean([| -1L |])) @>
