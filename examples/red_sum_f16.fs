// red_sum_f16: float16 sums of [67, 457] (accumulate in float32, round once): dim -1, dim 0 keepdim, [|0L; 1L|]
module Examples.RedSumF16

open TorchSharp

[<Kgen.Entry("float16[67,457]")>]
let red_sum_f16 =
    <@ fun (x: torch.Tensor) -> (x.sum(-1L), x.sum(0L, true), x.sum([| 0L; 1L |])) @>
