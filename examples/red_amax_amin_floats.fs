// red_amax_amin_floats: amax / amin of float64 [2000, 7], float16 [67, 457], bfloat16 [1, 1024] (exact: no rounding)
module Examples.RedAmaxAminFloats

open TorchSharp

[<Kgen.Entry("float64[2000,7], float16[67,457], bfloat16[1,1024]")>]
let red_amax_amin_floats =
    <@ fun (d: torch.Tensor) (h: torch.Tensor) (g: torch.Tensor) ->
        (d.amax([| 1L |]),
         d.amin([| 0L |], true),
         h.amax([| 0L |]),
         h.amin([| -1L |], true),
         g.amax([| 1L |]),
         torch.amin(g, [| 0L; 1L |])) @>
