// norm_into_product: a norm's row statistics computed by the product that alone reads them (passes/fuse.c row_stats, passes/lower_rowstats.c, kg_schedule_row_stats: fewer than 64 rows) — RMSNorm before a linear (Llama's), layer_norm before a float16 linear on the tensor-core tier, a variance written by hand (two statistics, the second reading the first) in bfloat16 over rows of 265, a batched product whose A is normalized per row, the two products of one normalized input merged and sharing the statistics; not at 64 rows, not when the normalized value is also a result
module Examples.NormIntoProduct

open TorchSharp

[<Kgen.Entry("float32[2,7,320], float32[320], float32[384,320]")>]
let rmsnorm_linear =
    <@ fun (x: torch.Tensor) (g: torch.Tensor) (w: torch.Tensor) ->
        let n = x * torch.rsqrt(x.pow((2).ToScalar()).mean([| -1L |], true) + 1e-5) * g
        torch.nn.functional.linear(n, w) @>

[<Kgen.Entry("float16[24,320], float16[320], float16[320], float16[128,320], float16[128]")>]
let layernorm_linear_f16 =
    <@ fun (x: torch.Tensor) (g: torch.Tensor) (b: torch.Tensor) (w: torch.Tensor) (bias: torch.Tensor) ->
        let n = torch.nn.functional.layer_norm(x, [| 320L |], g, b)
        torch.nn.functional.gelu(torch.nn.functional.linear(n, w, bias)) @>

[<Kgen.Entry("bfloat16[5,265], bfloat16[265,136]")>]
let handwritten_variance_bf16 =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        let m = x.mean([| -1L |], true)
        let v = (x - m).pow((2).ToScalar()).mean([| -1L |], true)
        ((x - m) / torch.sqrt(v + 1e-6)).matmul(w) @>

[<Kgen.Entry("float32[3,4,320], float32[3,320,96]")>]
let batched_norm_matmul =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        let s = x.sum([| -1L |], true)
        torch.matmul(x - s / 320.0, w) @>

[<Kgen.Entry("float32[2,9,320], float32[320], float32[192,320], float32[128,320]")>]
let rmsnorm_two_projections =
    <@ fun (x: torch.Tensor) (g: torch.Tensor) (wa: torch.Tensor) (wb: torch.Tensor) ->
        let n = x * torch.rsqrt(x.pow((2).ToScalar()).mean([| -1L |], true) + 1e-6) * g
        let a = torch.nn.functional.linear(n, wa)
        let b = torch.nn.functional.linear(n, wb)
        a.narrow(-1L, 0L, 128L) - b @>

[<Kgen.Entry("float32[64,320], float32[320], float32[96,320]")>]
let rmsnorm_linear_64_rows =
    <@ fun (x: torch.Tensor) (g: torch.Tensor) (w: torch.Tensor) ->
        let n = x * torch.rsqrt(x.pow((2).ToScalar()).mean([| -1L |], true) + 1e-5) * g
        torch.nn.functional.linear(n, w) @>

[<Kgen.Entry("float32[6,320], float32[96,320]")>]
let norm_also_a_result =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        let n = x * torch.rsqrt(x.pow((2).ToScalar()).mean([| -1L |], true) + 1e-5)
        (n, torch.nn.functional.linear(n, w)) @>
