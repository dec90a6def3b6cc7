// red_amax_amin_ints: amax / amin keep the integer dtype: int8, uint8, int16, int32, int64
module Examples.RedAmaxAminInts

open TorchSharp

[<Kgen.Entry("int8[457,67], uint8[67,7], int16[1,1024], int32[1024,67], int64[7,4097]")>]
let red_amax_amin_ints =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) (n: torch.Tensor) (m: torch.Tensor) ->
        (a.amax([| 1L |]),
         a.amin([| 0L |]),
         b.amax([| -1L |], true),
         b.amin([| 1L |]),
         c.amax([| 1L |]),
         n.amin([| 1L |]),
         n.amax([| 0L; 1L |]),
         torch.amin(m, [| -1L |]),
         torch.amax(m, [| 0L |], true)) @>
