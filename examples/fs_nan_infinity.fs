// fs_nan_infinity: F#'s nan, infinity, nanf and infinityf (properties of Operators, not
// constants, in a quotation) used to clean and clamp a tensor
module Examples.FsNanInfinity

open TorchSharp

[<Kgen.Entry("float32[40], float64[40]")>]
let fs_nan_infinity =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        let big = (x * 1e38f).exp()
        (big.clamp_max(infinityf).nan_to_num(0.0, 1.0, -1.0),
         torch.where(y.gt(0.0.ToScalar()), y, torch.full_like(y, nan.ToScalar())).nan_to_num(-infinity)) @>
