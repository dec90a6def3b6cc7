// loss_errors: loss-function calls PyTorch rejects for their constant arguments (tests/test_loss.c checks kgen's message and its F# location)
module Tests.LossErrors

open TorchSharp
open type TorchSharp.torch.nn

[<Kgen.Entry("float32[4,6], float32[4,6]")>]
let ce_probs_ignore = <@ fun (x: torch.Tensor) (p: torch.Tensor) -> functional.cross_entropy(x, p, ignore_index = 1L) @>

[<Kgen.Entry("float32[4,6], int64[4]")>]
let ce_smoothing_big = <@ fun (x: torch.Tensor) (t: torch.Tensor) -> functional.cross_entropy(x, t, label_smoothing = 1.5) @>

[<Kgen.Entry("float32[4,6], float32[4,6]")>]
let huber_delta_zero = <@ fun (x: torch.Tensor) (y: torch.Tensor) -> functional.huber_loss(x, y, 0.0) @>

[<Kgen.Entry("float32[4,6], float32[4,6]")>]
let smooth_beta_negative = <@ fun (x: torch.Tensor) (y: torch.Tensor) -> functional.smooth_l1_loss(x, y, beta = -1.0) @>
