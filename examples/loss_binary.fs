// loss_binary: binary_cross_entropy (probabilities in (0, 1), a weight), binary_cross_entropy_with_logits (weight, pos_weights, every reduction) and kl_div (TorchSharp's default log_target = true, and false) as TorchSharp's torch.nn.functional calls them
module Examples.LossBinary

open TorchSharp
open type TorchSharp.torch.nn

[<Kgen.Entry("float32[4,5] in [0.02, 0.98), float32[4,5] in [0, 1), float32[5] in [0.5, 2)")>]
let loss_bce =
    <@ fun (p: torch.Tensor) (t: torch.Tensor) (w: torch.Tensor) ->
        functional.binary_cross_entropy(p, t), functional.binary_cross_entropy(p, t, w, Reduction.Sum),
        functional.binary_cross_entropy(p, t, reduction = Reduction.None) @>

[<Kgen.Entry("float32[4,5], float32[4,5] in [0, 1), float32[5] in [0.5, 2), float32[5] in [0.5, 3)")>]
let loss_bce_logits =
    <@ fun (x: torch.Tensor) (t: torch.Tensor) (w: torch.Tensor) (pw: torch.Tensor) ->
        functional.binary_cross_entropy_with_logits(x, t), functional.binary_cross_entropy_with_logits(x, t, w, Reduction.Sum, pw),
        functional.binary_cross_entropy_with_logits(x, t, pos_weights = pw, reduction = Reduction.None) @>

[<Kgen.Entry("float32[3,6], float32[3,6] in [0.05, 1)")>]
let loss_kl_div =
    <@ fun (x: torch.Tensor) (t: torch.Tensor) ->
        let lp = x.log_softmax(1L)
        functional.kl_div(lp, t.log()), functional.kl_div(lp, t, false, Reduction.Sum), functional.kl_div(lp, t, false, Reduction.None) @>
