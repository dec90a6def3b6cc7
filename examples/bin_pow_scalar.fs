// bin_pow_scalar: pow with a Scalar exponent: float32 ^ 2f, int32 ^ 3 stays int32, sqrt via ^ 0.5
module Examples.BinPowScalar

open TorchSharp

[<Kgen.Entry("float32[128], int32[128]")>]
let bin_pow_scalar =
    <@ fun (x: torch.Tensor) (n: torch.Tensor) ->
        (x.pow(2.0f.ToScalar()),
         torch.pow(n, (3).ToScalar()),
         n.pow((2).ToScalar()),
         x.abs().pow(0.5.ToScalar())) @>
