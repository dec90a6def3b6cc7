// red_fuse_two_stage: a reduction of an expression that uses another reduction: variance by hand, and x normalized by it
module Examples.RedFuseTwoStage

open TorchSharp

[<Kgen.Entry("float32[457,67]")>]
let red_fuse_two_stage =
    <@ fun (x: torch.Tensor) ->
        let c = x - x.mean([| -1L |], true)
        ((c * c).mean([| -1L |]), c / ((c * c).mean([| -1L |], true) + 1e-05f).sqrt()) @>
