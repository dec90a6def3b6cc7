// red_reduce_of_reduce: a reduction of a reduction: x.sum(2L).amax([|0L|]) and x.amin([|2L|]).mean([|0L|]) on [7, 67, 67]
module Examples.RedReduceOfReduce

open TorchSharp

[<Kgen.Entry("float32[7,67,67]")>]
let red_reduce_of_reduce =
    <@ fun (x: torch.Tensor) -> (x.sum(2L).amax([| 0L |]), x.amin([| 2L |]).mean([| 0L |])) @>
