// loss_regression: mse_loss, l1_loss, smooth_l1_loss (beta, and 0: l1) and huber_loss (delta) with every reduction, broadcasting the target, float64 targets promoting (huber keeps the input's dtype), as TorchSharp's torch.nn.functional calls them
module Examples.LossRegression

open TorchSharp
open type TorchSharp.torch.nn

[<Kgen.Entry("float32[4,5], float32[4,5]")>]
let loss_mse_l1 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        functional.mse_loss(x, y), functional.mse_loss(x, y, Reduction.Sum), functional.mse_loss(x, y, Reduction.None),
        functional.l1_loss(x, y), functional.l1_loss(x, y, Reduction.Sum), functional.l1_loss(x, y, Reduction.None) @>

[<Kgen.Entry("float32[4,5], float32[4,5] in [-3, 3)")>]
let loss_smooth_huber =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        functional.smooth_l1_loss(x, y), functional.smooth_l1_loss(x, y, Reduction.Sum, 2.5), functional.smooth_l1_loss(x, y, Reduction.None, 0.0),
        functional.huber_loss(x, y), functional.huber_loss(x, y, 3.0, Reduction.Sum), functional.huber_loss(x, y, 0.5, Reduction.None) @>

[<Kgen.Entry("float32[3,4], float64[4]")>]
let loss_broadcast_promote =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        functional.mse_loss(x, y), functional.l1_loss(x, y, Reduction.None), functional.smooth_l1_loss(x, y), functional.huber_loss(x, y, reduction = Reduction.None) @>
