// red_mean_half: mean of float16 [67, 457] and bfloat16 [457, 67]; a float32 dtype (FieldGet and enum) gives a float32 result
module Examples.RedMeanHalf

open TorchSharp

[<Kgen.Entry("float16[67,457], bfloat16[457,67]")>]
let red_mean_half =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) ->
        (h.mean([| 1L |]),
         h.mean(),
         g.mean([| 0L |], true),
         g.mean([| -1L |], false, torch.float32),
         torch.mean(h, [| 0L |], false, torch.ScalarType.Float32)) @>
