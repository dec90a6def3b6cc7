// like_zeros_ones: zeros_like / ones_like, static and instance, with and without a dtype
module Examples.LikeZerosOnes

open TorchSharp

[<Kgen.Entry("float32[7,9]")>]
let like_zeros_ones =
    <@ fun (x: torch.Tensor) ->
        (torch.zeros_like(x),
         x.ones_like(),
         torch.ones_like(x, torch.ScalarType.Int32),
         x.zeros_like(torch.float64)) @>
