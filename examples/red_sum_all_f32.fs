// red_sum_all_f32: all-reduce sum: x.sum() and torch.sum(x) (type = null filled in) on [457, 67]
module Examples.RedSumAllF32

open TorchSharp

[<Kgen.Entry("float32[457,67]")>]
let red_sum_all_f32 =
    <@ fun (x: torch.Tensor) -> (x.sum(), torch.sum(x)) @>
