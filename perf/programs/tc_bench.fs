// tc_bench: the products perf/gpu/bench.py times on the tensor-core tiers beside cuBLAS / cuDNN and
// torch.compile: matmul in float32 / float16 / bfloat16 (4096³), transformer projections (linear,
// bfloat16), attention's two batched products (float16), and ResNet-50's 3x3 and 1x1 convolutions
// with their bias and ReLU (float16, and float32 as the issue measured), all over symbolic sizes
module Perf.TcBench

open TorchSharp

[<Kgen.Entry("float32[M,K], float32[K,N]")>]
let mm_f32 = <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a.matmul(b) @>

[<Kgen.Entry("float16[M,K], float16[K,N]")>]
let mm_f16 = <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a.matmul(b) @>

[<Kgen.Entry("bfloat16[M,K], bfloat16[K,N]")>]
let mm_bf16 = <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a.matmul(b) @>

[<Kgen.Entry("bfloat16[M,K], bfloat16[N,K]")>]
let linear_bf16 = <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.linear(x, w) @>

[<Kgen.Entry("float16[B,H,T,D], float16[B,H,T,D]")>]
let attn_scores_f16 = <@ fun (q: torch.Tensor) (k: torch.Tensor) -> q.matmul(k.transpose(-2L, -1L)) @>

[<Kgen.Entry("float16[B,H,T,T], float16[B,H,T,D]")>]
let attn_pv_f16 = <@ fun (p: torch.Tensor) (v: torch.Tensor) -> p.matmul(v) @>

[<Kgen.Entry("float16[N,C,H,W], float16[O,C,3,3], float16[O]")>]
let conv3x3_relu_f16 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.conv2d(x, w, b, padding = [| 1L; 1L |]).relu() @>

[<Kgen.Entry("float32[N,C,H,W], float32[O,C,3,3], float32[O]")>]
let conv3x3s2_relu_f32 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.conv2d(x, w, b, strides = [| 2L; 2L |], padding = [| 1L; 1L |]).relu() @>

[<Kgen.Entry("float16[N,C,H,W], float16[O,C,1,1], float16[O]")>]
let conv1x1_relu_f16 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.conv2d(x, w, b).relu() @>
