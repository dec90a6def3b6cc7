// red_amax_amin_3d: amax / amin of [7, 7, 457] over [|0L; 2L|], [|1L|] keepdim, [|-2L; -1L|], all dims unordered, [|0L|]
module Examples.RedAmaxAmin3d

open TorchSharp

[<Kgen.Entry("float32[7,7,457]")>]
let red_amax_amin_3d =
    <@ fun (x: torch.Tensor) ->
        (x.amax([| 0L; 2L |]),
         x.amin([| 1L |], true),
         x.amax([| -2L; -1L |]),
         x.amin([| 2L; 0L; 1L |]),
         torch.amax(x, [| 0L |])) @>
