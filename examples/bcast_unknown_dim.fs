// bcast_unknown_dim: a null (any) size in the signature: x [null, 4] + 1
module Examples.BcastUnknownDim

open TorchSharp

[<Kgen.Entry("float64[?,4]")>]
let bcast_unknown_dim =
    <@ fun (x: torch.Tensor) -> x + 1 @>
