// red_sum_bool: bool sums count true values (int64); as float32 and int32 with a dtype
module Examples.RedSumBool

open TorchSharp

[<Kgen.Entry("bool[2000,7]")>]
let red_sum_bool =
    <@ fun (m: torch.Tensor) ->
        (m.sum(1L),
         torch.sum(m),
         m.sum(0L, true, torch.float32),
         m.sum([| 1L |], false, torch.int32)) @>
