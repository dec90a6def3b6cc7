// red_amax_amin_bool: amax / amin of bool stay bool (any / all over the dims)
module Examples.RedAmaxAminBool

open TorchSharp

[<Kgen.Entry("bool[2000,7]")>]
let red_amax_amin_bool =
    <@ fun (q: torch.Tensor) ->
        (q.amax([| 1L |]), q.amin([| 1L |]), torch.amax(q, [| 0L |], true), q.amin([| 0L; 1L |])) @>
