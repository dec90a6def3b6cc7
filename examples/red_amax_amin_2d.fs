// red_amax_amin_2d: amax(Int64[]) / amax(Int64[], keepdim, out = null), instance and static, on [3, 4097]; amin on [457, 67] (torch.amin: keepdim and out filled in)
module Examples.RedAmaxAmin2d

open TorchSharp

[<Kgen.Entry("float32[3,4097], float32[457,67]")>]
let red_amax_amin_2d =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (x.amax([| 1L |]),
         torch.amax(x, [| -1L |]),
         x.amax([| 0L |], true),
         torch.amax(x, [| 1L |], true),
         y.amin([| 1L |]),
         torch.amin(y, [| 0L |]),
         y.amin([| -1L |], true),
         y.amin([| 0L; 1L |])) @>
