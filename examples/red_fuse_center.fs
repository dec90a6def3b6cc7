// red_fuse_center: x - x.mean([|-1L|], true): a keepdim reduction broadcast back into its input ([457, 67])
module Examples.RedFuseCenter

open TorchSharp

[<Kgen.Entry("float32[457,67]")>]
let red_fuse_center =
    <@ fun (x: torch.Tensor) -> x - x.mean([| -1L |], true) @>
