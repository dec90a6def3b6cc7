// mm_sibling_projections: products of one input with separate weights — attention's q, k and v projections with their biases, an MLP's gate and up projections without — run as one product over the weights' concatenation when the input has few rows (passes/merge_products.c, kg_schedule_merge_siblings: fewer than 64 rows; from 16 rows, at most 4 MiB of weights unless every weight is a tensor the tensor-core tier copies by cp.async), each result a slice of it; a bfloat16 pair whose second weight is cast after the first product (the cast moves before the merged product); at 64 rows the products stay apart; a projection that is also a result stays apart from its siblings; float16 on the tensor-core tier (the concatenation copied by cp.async, a row from its own weight); three float32 weights of 2.6, 2.6 and 0.5 MB: all three merge (at 2 rows on the SIMT tiles; at 24, tensors cp.async copies); the same weights stored as float16 and cast to float32 at 24 rows (evaluated into registers): all three (5.8 MB) are past the limit, the last two (3.1 MB) merge
module Examples.MmSiblingProjections

open TorchSharp

[<Kgen.Entry("float32[2,5,16], float32[12,16], float32[12], float32[8,16], float32[8], float32[8,16], float32[8], float32[24,16], float32[24,16]")>]
let mm_sibling_qkv_mlp =
    <@ fun (x: torch.Tensor) (wq: torch.Tensor) (bq: torch.Tensor) (wk: torch.Tensor) (bk: torch.Tensor) (wv: torch.Tensor) (bv: torch.Tensor) (wg: torch.Tensor) (wu: torch.Tensor) ->
        let q = torch.nn.functional.linear(x, wq, bq)
        let k = torch.nn.functional.linear(x, wk, bk)
        let v = torch.nn.functional.linear(x, wv, bv)
        let s = torch.matmul(q.narrow(-1L, 0L, 8L), k.transpose(-2L, -1L)).softmax(-1L)
        let h = torch.matmul(s, v)
        let gate = torch.nn.functional.linear(x, wg)
        let up = x.matmul(wu.t())
        (h, torch.nn.functional.silu(gate) * up) @>

[<Kgen.Entry("bfloat16[3,32], bfloat16[40,32], float32[24,32]")>]
let mm_sibling_bf16_cast =
    <@ fun (x: torch.Tensor) (wa: torch.Tensor) (wb: torch.Tensor) ->
        let a = torch.nn.functional.linear(x, wa)
        let b = torch.nn.functional.linear(x, wb.to_type(torch.ScalarType.BFloat16))
        a.sum(-1L, true) * b @>

[<Kgen.Entry("float32[4,16,288], float32[12,288], float32[12,288], float32[9,288], float32[9,288]")>]
let mm_sibling_rows_and_results =
    <@ fun (x: torch.Tensor) (w1: torch.Tensor) (w2: torch.Tensor) (w3: torch.Tensor) (w4: torch.Tensor) ->
        let big = torch.nn.functional.linear(x, w1) + torch.nn.functional.linear(x, w2)
        let y = x.narrow(1L, 0L, 3L)
        let p = torch.nn.functional.linear(y, w3)
        let r = torch.nn.functional.linear(y, w4)
        let t = torch.nn.functional.linear(y, w1)
        (big, p * t.narrow(-1L, 0L, 9L), r) @>

[<Kgen.Entry("float16[24,320], float16[128,320], float16[128], float16[64,320], float16[64], float16[72,320], float16[72]")>]
let mm_sibling_f16_tensor_cores =
    <@ fun (x: torch.Tensor) (wq: torch.Tensor) (bq: torch.Tensor) (wk: torch.Tensor) (bk: torch.Tensor) (wv: torch.Tensor) (bv: torch.Tensor) ->
        let q = torch.nn.functional.linear(x, wq, bq)
        let k = torch.nn.functional.linear(x, wk, bk)
        let v = torch.nn.functional.linear(x, wv, bv)
        torch.nn.functional.gelu(q.narrow(-1L, 0L, 64L)) + k.relu() - v.narrow(-1L, 8L, 64L) @>

[<Kgen.Entry("float32[2,1024], float32[640,1024], float32[640,1024], float32[128,1024]")>]
let mm_sibling_big_weights =
    <@ fun (x: torch.Tensor) (w1: torch.Tensor) (w2: torch.Tensor) (w3: torch.Tensor) ->
        let a = torch.nn.functional.linear(x, w1)
        let b = torch.nn.functional.linear(x, w2)
        let c = torch.nn.functional.linear(x, w3)
        (a - b).amax([| -1L |], true) + c @>

[<Kgen.Entry("float32[24,1024], float16[640,1024], float16[640,1024], float16[128,1024]")>]
let mm_sibling_cast_weights_24_rows =
    <@ fun (x: torch.Tensor) (w1: torch.Tensor) (w2: torch.Tensor) (w3: torch.Tensor) ->
        let a = torch.nn.functional.linear(x, w1.to_type(torch.ScalarType.Float32))
        let b = torch.nn.functional.linear(x, w2.to_type(torch.ScalarType.Float32))
        let c = torch.nn.functional.linear(x, w3.to_type(torch.ScalarType.Float32))
        (a - b).amax([| -1L |], true) + c @>
