// clamp_one_sided: one-sided clamp via named arguments: the other bound arrives as Value null
module Examples.ClampOneSided

open TorchSharp

[<Kgen.Entry("float32[200], float32[200]")>]
let clamp_one_sided =
    <@ fun (x: torch.Tensor) (hi: torch.Tensor) ->
        (x.clamp(min = 0.5f.ToScalar()), x.clamp(max = hi), torch.clamp(x, max = (-1.0).ToScalar())) @>
