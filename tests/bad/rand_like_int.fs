// rand_like_int: rand_like of an int32 tensor (uniform draws are floating point)
module Bad.RandLikeInt

open TorchSharp

[<Kgen.Entry("int32[4]")>]
let rand_like_int =
    <@ fun (x: torch.Tensor) -> x.rand_like() @>
