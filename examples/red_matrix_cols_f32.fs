// red_matrix_cols_f32: the same reductions over the first dim of a symbolic ["R", "C"] float32 (outer reductions: column schedules)
module Examples.RedMatrixColsF32

open TorchSharp

[<Kgen.Entry("float32[R,C]")>]
let red_matrix_cols_f32 =
    <@ fun (x: torch.Tensor) ->
        let struct (v, i) = x.min(0L)
        (x.sum(0L),
         x.mean([| 0L |]),
         x.amax([| 0L |]),
         x.amin([| 0L |], true),
         x.argmin(0L),
         v,
         i,
         x.var(0L),
         x.std(0L, false, true),
         x.logsumexp(0L),
         x.norm(0, p = 1.0f),
         x.softmax(0L),
         x.log_softmax(0L),
         x.cumsum(0L)) @>
