// norm_softmax_fused_prologue: attention-style (s * 0.125f + mask).softmax(-1L) * 2.0f: a broadcast pointwise prologue and an epilogue around a softmax over rows of 457
module Examples.NormSoftmaxFusedPrologue

open TorchSharp

[<Kgen.Entry("float32[4,67,457], float32[67,457]")>]
let norm_softmax_fused_prologue =
    <@ fun (s: torch.Tensor) (mask: torch.Tensor) -> (s * 0.125f + mask).softmax(-1L) * 2.0f @>
