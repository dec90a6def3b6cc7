// red_amax_empty_dim: amax over a dim of size 0 (no identity for max: PyTorch errors; sum would give 0)
module Bad.RedAmaxEmptyDim

open TorchSharp

[<Kgen.Entry("float32[4,0]")>]
let red_amax_empty_dim =
    <@ fun (x: torch.Tensor) -> x.amax([| 1L |]) @>
