// norm_softmax_dim_out_of_range: softmax over dim 2 of a 2-D tensor (dims must be in [-rank, rank - 1])
module Bad.NormSoftmaxDimOutOfRange

open TorchSharp

[<Kgen.Entry("float32[3,4]")>]
let norm_softmax_dim_out_of_range =
    <@ fun (x: torch.Tensor) -> x.softmax(2L) @>
