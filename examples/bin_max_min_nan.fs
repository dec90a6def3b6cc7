// bin_max_min_nan: maximum / minimum propagate NaN, fmax / fmin ignore it (log(x + 6) is NaN for x < -6)
module Examples.BinMaxMinNan

open TorchSharp

[<Kgen.Entry("float32[500], float32[500]")>]
let bin_max_min_nan =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        let xn = (x + 6).log()
        (torch.maximum(xn, y), xn.minimum(y), torch.fmax(xn, y), xn.fmin(y)) @>
