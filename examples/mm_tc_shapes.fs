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
