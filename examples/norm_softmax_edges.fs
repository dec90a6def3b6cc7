// norm_softmax_edges: logsumexp, softmax and log_softmax over rows of 3 holding -inf (log of relu: x <= 0), whole rows of -inf, +inf (the negation: such a row is NaN, as in PyTorch) and NaN (log of x < 0), the max and the sum of exp in one walk of the row kernel (online softmax; the forced-strided variant walks them apart)
module Examples.NormSoftmaxEdges

open TorchSharp

[<Kgen.Entry("float32[64,3]")>]
let norm_softmax_edges =
    <@ fun (x: torch.Tensor) ->
        let ninf = x.relu().log()
        let pinf = ninf.neg()
        let nan = x.log()
        (ninf.logsumexp(-1L, false),
         ninf.softmax(-1L),
         ninf.log_softmax(-1L),
         pinf.logsumexp(-1L, true),
         pinf.softmax(-1L),
         nan.softmax(-1L),
         nan.logsumexp(-1L, false)) @>
