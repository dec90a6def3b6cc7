// grad_structure: entries whose backward programs tests/test_grad.c checks for structure (kernels, their kinds, what the forward saves) and whose refusals it checks (host control flow, a map lambda, an in-place update of a parameter that wants its gradient)
module Tests.GradStructure

open TorchSharp
open type TorchSharp.torch.nn

[<Kgen.Entry("float32[N,64]")>]
let softmax_rows = <@ fun (x: torch.Tensor) -> x.softmax(-1L) @>

[<Kgen.Entry("float32[N,64]")>]
let log_softmax_rows = <@ fun (x: torch.Tensor) -> x.log_softmax(-1L) @>

[<Kgen.Entry("float32[N,64], float32[64], float32[64]")>]
let layer_norm_affine = <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> functional.layer_norm(x, [| 64L |], w, b) @>

[<Kgen.Entry("float32[4,8,32], float32[48,32], float32[48]")>]
let linear_relu = <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> functional.linear(x, w, b).relu() @>

[<Kgen.Entry("float32[16,32], float32[32]")>]
let bias_relu_dropout = <@ fun (x: torch.Tensor) (b: torch.Tensor) -> functional.dropout((x + b).relu(), 0.5, true) @>

[<Kgen.Entry("float32[N,10], int64[N] in [0, 10)")>]
let ce_loss = <@ fun (x: torch.Tensor) (t: torch.Tensor) -> functional.cross_entropy(x, t) @>

[<Kgen.Entry("float32[2,3,10,10], float32[4,3,3,3], float32[4]")>]
let conv_relu_pool =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> functional.max_pool2d(functional.conv2d(x, w, b).relu(), 2L) @>

[<Kgen.Entry("float32[12,16], int64[5,3] in [0, 12)")>]
let embedding_rows = <@ fun (w: torch.Tensor) (idx: torch.Tensor) -> (w.index_select(0L, idx.flatten()) * 2.0f).sum(1L) @>

[<Kgen.Entry("float32[8]")>]
let map_lambda = <@ fun (x: torch.Tensor) -> Kgen.Ops.map (fun (v: float32) -> v * v + 1.0f) x @>

[<Kgen.Entry("float32[8], int64")>]
let host_loop =
    <@ fun (x: torch.Tensor) (n: int64) ->
        let mutable h = x
        for i in 0 .. int n do
            h <- h.tanh() + x
        h @>

[<Kgen.Entry("float32[8], float32[8]")>]
let inplace_param = <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x.add_(y) * 2.0f @>
