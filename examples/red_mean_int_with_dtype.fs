// red_mean_int_with_dtype: mean of integers is allowed only with a floating dtype: int32 -> float32, int64 -> float64, uint8 -> float32
module Examples.RedMeanIntWithDtype

open TorchSharp

[<Kgen.Entry("int32[1024,7], int64[67,67], uint8[7,457]")>]
let red_mean_int_with_dtype =
    <@ fun (n: torch.Tensor) (m: torch.Tensor) (u: torch.Tensor) ->
        (n.mean([| 1L |], false, torch.float32),
         m.mean([| 0L; 1L |], true, torch.float64),
         torch.mean(u, [| -1L |], false, torch.float32)) @>
