// red_dim_out_of_range: sum over dim 2 of a 2-D tensor (dims must be in [-rank, rank - 1])
module Bad.RedDimOutOfRange

open TorchSharp

[<Kgen.Entry("float32[3,4]")>]
let red_dim_out_of_range =
    <@ fun (x: torch.Tensor) -> x.sum(2L) @>
