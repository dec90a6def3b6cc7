// norm_var_mean_rows: the mean and the variance of the same rows (layer_norm's statistics) over few long rows: the split-rows plan keeps a mean and its Welford variance in one split group (one walk over each chunk for both, the finish kernel takes the mean from the merged partials); a second variance, a mean of another input and a keepdim mean beside them
module Examples.NormVarMeanRows

open TorchSharp

[<Kgen.Entry("float32[3,70001]")>]
let norm_var_mean_rows =
    <@ fun (x: torch.Tensor) ->
        (x.mean([| -1L |]),
         x.var(-1L),
         x.var(-1L, false),
         (x * 2.0f).mean([| -1L |], keepdim = true),
         x.mean([| 1L |], keepdim = true) - x.var(1L, false, true)) @>
