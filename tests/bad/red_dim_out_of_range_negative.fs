// red_dim_out_of_range_negative: amax over dim -3 of a 2-D tensor (negative dims count from the end, down to -rank)
module Bad.RedDimOutOfRangeNegative

open TorchSharp

[<Kgen.Entry("float32[3,4]")>]
let red_dim_out_of_range_negative =
    <@ fun (x: torch.Tensor) -> x.amax([| -3L |]) @>
