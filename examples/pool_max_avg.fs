// pool_max_avg: max_pool2d of relu(x) (3x3, stride 2, padding 1, ceil_mode) plus a bias, avg_pool2d with and without count_include_pad, and the 1-d forms with dilation, odd sizes
module Examples.PoolMaxAvg

open TorchSharp

[<Kgen.Entry("float32[2,3,9,7], float32[3,1,1], float32[2,4,11]")>]
let pool_max_avg =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) (s: torch.Tensor) ->
        (torch.nn.functional.max_pool2d(x.relu(), [| 3L; 3L |], [| 2L; 2L |], [| 1L; 1L |], ceil_mode = true) + b,
         torch.nn.functional.avg_pool2d(x, [| 3L; 2L |], [| 2L; 3L |], [| 1L; 1L |]),
         torch.nn.functional.avg_pool2d(x, [| 3L; 3L |], [| 2L; 2L |], [| 1L; 1L |], ceil_mode = true, count_include_pad = false),
         torch.nn.functional.max_pool1d(s, 3L, 2L, 1L, 2L),
         torch.nn.functional.avg_pool1d(s * 2.0f, 4L, 3L, 2L, true, false)) @>

// stride larger than the kernel with dilation; a transposed (non-contiguous) input whose last
// ceil_mode window would start in the right padding (dropped, as PyTorch drops it); divisor_override;
// NaN propagation through max pooling (log of negative numbers); the Int64 overload
[<Kgen.Entry("float32[2,3,5,8]")>]
let pool_windows =
    <@ fun (x: torch.Tensor) ->
        (torch.nn.functional.max_pool2d(x, [| 2L; 2L |], [| 3L; 3L |], [| 1L; 1L |], [| 2L; 1L |]),
         torch.nn.functional.max_pool2d(x.transpose(2L, 3L), [| 2L; 2L |], [| 2L; 2L |], [| 1L; 1L |], ceil_mode = true),
         torch.nn.functional.avg_pool2d(x, [| 2L; 3L |], [| 1L; 2L |], [| 1L; 1L |], true, true, 5L),
         torch.nn.functional.max_pool2d(x.log(), 3L, 1L, 1L),
         torch.nn.functional.adaptive_max_pool2d(x.log(), [| 2L; 3L |]),
         torch.nn.functional.max_pool1d(x.log().flatten(2L), 3L)) @>
