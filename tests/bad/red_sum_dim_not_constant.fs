// red_sum_dim_not_constant: sum over a dim that is a parameter (d: int64), not a constant: the output rank would depend on a run-time value
module Bad.RedSumDimNotConstant

open TorchSharp

[<Kgen.Entry("float32[3,4], int64")>]
let red_sum_dim_not_constant =
    <@ fun (x: torch.Tensor) (d: int64) -> x.sum(d) @>
