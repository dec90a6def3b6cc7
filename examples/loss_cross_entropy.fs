// loss_cross_entropy: torch.nn.functional.cross_entropy and nll_loss as TorchSharp calls them — class indices (every reduction, a class weight, an ignore_index, label smoothing, [N, C, d] inputs, a 1-D input) and class probabilities (with smoothing and weights); log_softmax and nll are one row kernel over the class dim
module Examples.LossCrossEntropy

open TorchSharp
open type TorchSharp.torch.nn

[<Kgen.Entry("float32[N,10], int64[N] in [0, 10)")>]
let loss_ce_mean = <@ fun (x: torch.Tensor) (t: torch.Tensor) -> functional.cross_entropy(x, t) @>

[<Kgen.Entry("float32[6,5], int64[6] in [0, 5), float32[5] in [0.5, 2)")>]
let loss_ce_weight_ignore =
    <@ fun (x: torch.Tensor) (t: torch.Tensor) (w: torch.Tensor) ->
        functional.cross_entropy(x, t, w, ignore_index = 2L),
        functional.cross_entropy(x, t, w, ignore_index = 2L, reduction = Reduction.Sum),
        functional.cross_entropy(x, t, w, ignore_index = 2L, reduction = Reduction.None) @>

[<Kgen.Entry("float32[6,5], int64[6] in [0, 5), float32[5] in [0.5, 2)")>]
let loss_ce_smoothing =
    <@ fun (x: torch.Tensor) (t: torch.Tensor) (w: torch.Tensor) ->
        functional.cross_entropy(x, t, label_smoothing = 0.1),
        functional.cross_entropy(x, t, w, ignore_index = 1L, label_smoothing = 0.2),
        functional.cross_entropy(x, t, ignore_index = 3L, reduction = Reduction.None, label_smoothing = 0.3) @>

[<Kgen.Entry("float32[2,4,3,5], int64[2,3,5] in [0, 4)")>]
let loss_ce_spatial =
    <@ fun (x: torch.Tensor) (t: torch.Tensor) ->
        functional.cross_entropy(x, t), functional.cross_entropy(x, t, reduction = Reduction.None) @>

[<Kgen.Entry("float32[7], int64[] in [0, 7)")>]
let loss_ce_single = <@ fun (x: torch.Tensor) (t: torch.Tensor) -> functional.cross_entropy(x, t) @>

[<Kgen.Entry("float32[4,6], float32[4,6] in [0, 1), float32[6] in [0.5, 2)")>]
let loss_ce_probs =
    <@ fun (x: torch.Tensor) (p: torch.Tensor) (w: torch.Tensor) ->
        functional.cross_entropy(x, p),
        functional.cross_entropy(x, p, w, label_smoothing = 0.25, reduction = Reduction.Sum),
        functional.cross_entropy(x, p, reduction = Reduction.None) @>

[<Kgen.Entry("float32[5,8], int64[5] in [0, 8), float32[8] in [0.5, 2)")>]
let loss_nll =
    <@ fun (x: torch.Tensor) (t: torch.Tensor) (w: torch.Tensor) ->
        let lp = x.log_softmax(1L)
        functional.nll_loss(lp, t), functional.nll_loss(lp, t, w, Reduction.Sum), functional.nll_loss(x, t, reduction = Reduction.None) @>

[<Kgen.Entry("float16[4,6], int64[4] in [0, 6)")>]
let loss_ce_half = <@ fun (x: torch.Tensor) (t: torch.Tensor) -> functional.cross_entropy(x, t) @>
