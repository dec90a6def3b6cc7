// red_fuse_squeeze_views: squeeze and unsqueeze views of row reductions fuse into the row kernel: a global average pool flattened (adaptive_avg_pool2d(x, 1).flatten(1): one kernel), mean(-1, keepdim).squeeze(-1) with a view of a [4, 1] bias, unsqueeze of a column sum as a row output; a squeeze that does not line up with the rows (x - x.mean(1, keepdim).squeeze(1) on a square x broadcasts along the other dim) reads the means from memory
module Examples.RedFuseSqueezeViews

open TorchSharp

[<Kgen.Entry("float32[2,8,5,3]")>]
let pool_flatten =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.adaptive_avg_pool2d(x.relu(), 1L).flatten(1L) * 0.5f @>

[<Kgen.Entry("float32[4,7], float32[4,1]")>]
let mean_squeeze =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) -> x.mean([| -1L |], true).squeeze(-1L) * 2.0f + b.view(-1L) @>

[<Kgen.Entry("float32[6,5]")>]
let sum_unsqueeze_rows =
    <@ fun (x: torch.Tensor) -> x / x.sum(0L).unsqueeze(0L) + x.amax([| 0L |], true).squeeze(0L) @>

[<Kgen.Entry("float32[5,5]")>]
let squeeze_misaligned =
    <@ fun (x: torch.Tensor) -> x - x.mean([| 1L |], true).squeeze(1L) @>
