// batch_into_rows: products whose every batch multiplies the same matrix B (a linear over a sequence [T, N, K], a matmul of a batch by a 2-D weight) — on the CPU device the batch folds into the rows (kg_variant.mm_fold: batch · M rows under one packed panel per column tile, each row's batch from its index) instead of a panel packed per batch; a sequence's input projection (the LSTM's), a batch of single rows, two batch dims with odd sizes, a permuted (strided) input, B stored [K, N], a B with its own batch (not folded); and their epilogues on full tiles of 16 columns unrolled where every stride along N is 1 — two results, one result stored transposed (its stride along N is 7: column by column)
module Examples.BatchIntoRows

open TorchSharp

[<Kgen.Entry("float32[T,8,64], float32[96,64], float32[96]")>]
let linear_over_sequence =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b)) @>

[<Kgen.Entry("float32[B,1,48], float32[40,48]")>]
let one_row_per_batch =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.linear(x, w) * 0.5 @>

[<Kgen.Entry("float32[2,3,5,264], float32[23,264], float32[2,3,5,23]")>]
let two_batch_dims_residual =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (r: torch.Tensor) -> torch.nn.functional.linear(x, w) + r @>

[<Kgen.Entry("float32[6,T,33], float32[20,33]")>]
let permuted_sequence =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.nn.functional.linear(x.permute(1L, 0L, 2L), w).relu() @>

[<Kgen.Entry("float32[4,13,264], float32[264,35]")>]
let matmul_weight_k_by_n =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.matmul(x, w) @>

[<Kgen.Entry("float32[3,40,264], float32[3,264,48]")>]
let batched_weight_not_folded =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> torch.matmul(x, w) @>

[<Kgen.Entry("float32[5,7,264], float32[48,264], float32[48]")>]
let linear_two_results =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        let y = torch.nn.functional.linear(x, w, b)
        (y, (y * 2.0).relu()) @>

[<Kgen.Entry("float32[5,7,264], float32[50,264], float32[50]")>]
let linear_result_transposed =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        torch.nn.functional.linear(x, w, b).transpose(1L, 2L) + 1.0 @>
