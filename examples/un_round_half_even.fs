// un_round_half_even: round of exact halves rounds half to even (built as round(2x) * 0.5)
module Examples.UnRoundHalfEven

open TorchSharp

[<Kgen.Entry("float32[200]")>]
let un_round_half_even =
    <@ fun (x: torch.Tensor) ->
        let h = (x * 2.0f).round() * 0.5f
        (h.round(), torch.round(h)) @>
