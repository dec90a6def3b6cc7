// norm_fused: what fuses around pooling and normalization: an eval-mode batch_norm, relu and max_pool2d with a bias (one kernel), training-mode batch_norm (one row kernel), group_norm over 2 groups (statistics, then the normalization), a global average pool as a row reduction
module Examples.NormFused

open TorchSharp

[<Kgen.Entry("float32[2,4,9,9], rm=float32[4], rv=float32[4], w=float32[4], b=float32[4]")>]
let norm_bn_relu_pool (rm: torch.Tensor) (rv: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) =
    <@ fun (x: torch.Tensor) ->
        torch.nn.functional.max_pool2d(torch.nn.functional.batch_norm(x, rm, rv, w, b).relu(), [| 3L; 3L |], [| 2L; 2L |], [| 1L; 1L |]) + 1.0f @>

[<Kgen.Entry("float32[3,4,5,6], float32[4], float32[4]")>]
let norm_bn_train =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.batch_norm(x, null, null, w, b, true).relu() @>

[<Kgen.Entry("float32[2,6,3,5], float32[6], float32[6]")>]
let norm_group2 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.group_norm(x, 2L, w, b).silu() @>

[<Kgen.Entry("float32[2,8,7,7]")>]
let pool_global_head =
    <@ fun (x: torch.Tensor) ->
        torch.nn.functional.adaptive_avg_pool2d(x.relu(), 1L) * 0.5f @>
