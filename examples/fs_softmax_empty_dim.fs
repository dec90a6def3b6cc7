// fs_softmax_empty_dim: softmax, log_softmax and logsumexp over an empty dim: empty results and -inf, not amax's error for an empty reduction (kgen reported the max inside their decomposition as the user's amax; found by kgen fuzz, seed 2261)
module Examples.FsSoftmaxEmptyDim
open TorchSharp

[<Kgen.Entry("float32[3,0]")>]
let fs_softmax_empty_dim =
    <@ fun (x: torch.Tensor) -> (x.softmax(1L), x.log_softmax(-1L), x.logsumexp(1L, false), x.logsumexp(1L, true)) @>
