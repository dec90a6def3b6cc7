// norm_welford_offset: mean and variance of rows far from zero, (x + 10000) over [67, 4097]: one pass (Welford), then normalized
module Examples.NormWelfordOffset

open TorchSharp

[<Kgen.Entry("float32[67,4097]")>]
let norm_welford_offset =
    <@ fun (x: torch.Tensor) ->
        let y = x + 10000.0f
        (y.mean([| -1L |]),
         y.var(-1L),
         (y - y.mean([| -1L |], true)) / (y.var(-1L, true, true) + 1e-05f).sqrt()) @>
