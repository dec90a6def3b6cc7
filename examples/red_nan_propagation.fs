// red_nan_propagation: NaN propagates through sum / mean / amax / amin rows of 7 (log(x + 8.5) is NaN for x < -8.5); nansum skips it
module Examples.RedNanPropagation

open TorchSharp

[<Kgen.Entry("float32[2000,7]")>]
let red_nan_propagation =
    <@ fun (x: torch.Tensor) ->
        let y = (x + 8.5f).log()
        (y.amax([| 1L |]), y.sum(1L), y.mean([| 1L |]), y.amin([| -1L |], true), y.nansum()) @>
