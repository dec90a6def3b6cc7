// un_nan_to_num_default: nan_to_num with defaults (nan=0, posinf/neginf = dtype max/lowest)
module Examples.UnNanToNumDefault

open TorchSharp

[<Kgen.Entry("float32[500]")>]
let un_nan_to_num_default =
    <@ fun (x: torch.Tensor) ->
        let y = x.log() * (x * 100.0f).exp()
        (y.nan_to_num(), torch.nan_to_num(y)) @>
