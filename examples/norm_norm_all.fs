// norm_norm_all: all-element norms: torch.norm(x) (p = 2), torch.norm(x, p) and x.norm(p) with p = 2 (default), 1, 3 and infinity (System.Single.PositiveInfinity) on [457, 67]
module Examples.NormNormAll

open TorchSharp

[<Kgen.Entry("float32[457,67]")>]
let norm_norm_all =
    <@ fun (x: torch.Tensor) ->
        (torch.norm(x),
         torch.norm(x, 1.0f),
         torch.norm(x, 3.0f),
         torch.norm(x, System.Single.PositiveInfinity),
         x.norm(),
         x.norm(1.0f),
         x.norm(System.Single.PositiveInfinity),
         x.norm(3.0f)) @>
