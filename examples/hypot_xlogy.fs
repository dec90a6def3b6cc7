// hypot_xlogy: hypot and xlogy (xlogy(0, y) = 0), Tensor and Scalar forms
module Examples.HypotXlogy

open TorchSharp

[<Kgen.Entry("float32[180], float32[180]")>]
let hypot_xlogy =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (torch.hypot(x, y),
         x.hypot(y),
         torch.xlogy(x.relu(), y.abs()),
         x.relu().xlogy(2.0f.ToScalar()),
         torch.xlogy(x, 3.0.ToScalar())) @>
