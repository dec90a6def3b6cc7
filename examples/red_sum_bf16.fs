// red_sum_bf16: bfloat16 sums of [457, 67]: [|1L|], [|0L|] keepdim, torch.sum(x, 1L, false, float32)
module Examples.RedSumBf16

open TorchSharp

[<Kgen.Entry("bfloat16[457,67]")>]
let red_sum_bf16 =
    <@ fun (x: torch.Tensor) ->
        (x.sum([| 1L |]), x.sum([| 0L |], true), torch.sum(x, 1L, false, torch.float32)) @>
