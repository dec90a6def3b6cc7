// red_matrix_half_f64: float16 rows and bfloat16 columns of a symbolic ["R", "C"] (float32 accumulation, one rounding), float64 rows: sum, amax, var, softmax, cumsum
module Examples.RedMatrixHalfF64

open TorchSharp

[<Kgen.Entry("float16[R,C], bfloat16[R,C], float64[R,C]")>]
let red_matrix_half_f64 =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) (d: torch.Tensor) ->
        (h.sum(-1L),
         h.amax([| -1L |]),
         h.var(-1L),
         h.softmax(-1L),
         h.cumsum(-1L),
         g.sum(0L),
         g.amax([| 0L |]),
         g.softmax(0L),
         d.sum(-1L),
         d.var(-1L),
         d.softmax(-1L),
         d.cumsum(-1L)) @>
