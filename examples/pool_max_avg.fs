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
