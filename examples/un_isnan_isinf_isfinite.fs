// un_isnan_isinf_isfinite: isnan, isinf, isfinite on a tensor with inf (x * 1e38f) and NaN (inf - inf)
module Examples.UnIsnanIsinfIsfinite

open TorchSharp

[<Kgen.Entry("float32[400]")>]
let un_isnan_isinf_isfinite =
    <@ fun (x: torch.Tensor) ->
        let y = x * 1e+38f
        (y.isinf(), torch.isfinite(y), (y - y).isnan(), torch.isnan(y), x.isfinite()) @>
