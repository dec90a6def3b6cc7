// red_fuse_exp_sum: x.exp().sum([|1L|]) on [457, 67] (the exp is fused into the reduction's loads)
module Examples.RedFuseExpSum

open TorchSharp

[<Kgen.Entry("float32[457,67]")>]
let red_fuse_exp_sum =
    <@ fun (x: torch.Tensor) -> x.exp().sum([| 1L |]) @>
