// bcast_scalar_like_1: [6,10] with [1] and [1,1] tensors: (x - m) * s
module Examples.BcastScalarLike1

open TorchSharp

[<Kgen.Entry("float32[6,10], float32[1], float32[1,1]")>]
let bcast_scalar_like_1 =
    <@ fun (x: torch.Tensor) (m: torch.Tensor) (s: torch.Tensor) -> (x - m) * s @>
