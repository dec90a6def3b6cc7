// mm_tc_shapes: products the tensor-core tier takes — float32 (split-TF32), float16 and bfloat16 matmul
// over symbolic sizes (tests/test_mma.c runs them at sizes that are no tile multiples, K = 0 and
// 1, transposed and misaligned operands), a bfloat16 linear with bias and GELU (the weight [N, K]
// read K-major), and a batched float16 product with its batch broadcast
module Examples.MmTcShapes

open TorchSharp

[<Kgen.Entry("float32[M,K], float32[K,N]")>]
let mm_tc_f32 =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.matmul(a, b) @>

[<Kgen.Entry("float16[M,K], float16[K,N]")>]
let mm_tc_f16 =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> a.matmul(b) @>

[<Kgen.Entry("bfloat16[M,K], bfloat16[N,K], bfloat16[N]")>]
let mm_tc_bf16_linear =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.linear(x, w, b).gelu() @>

[<Kgen.Entry("float16[B,M,K], float16[K,N]")>]
let mm_tc_f16_batched =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.matmul(a, b) * 0.5f @>

// a float32 linear with bias and ReLU: on the CPU device few rows of x take the dot schedule,
// reading the weight's rows along K (tests/test_mma.c, mma_cpu)
[<Kgen.Entry("float32[M,K], float32[N,K], float32[N]")>]
let mm_f32_linear =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.linear(x, w, b).relu() @>

// 1 × 1 convolutions are plain products over their input as it is: the input's channel planes
// are B's rows, copied by cp.async when each plane starts 16-byte aligned (H·W·2 bytes a multiple
// of 16), else staged through registers; groups read their channels' block of the input
[<Kgen.Entry("float16[N,64,H,W], float16[32,64,1,1], float16[32]")>]
let conv1x1_f16 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) -> torch.nn.functional.conv2d(x, w, b).relu() @>

[<Kgen.Entry("float32[N,32,H,W], float32[16,16,1,1]")>]
let conv1x1_grouped_f32 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.conv2d(x, w, groups = 2L) @>
