// red_columns_vec: reductions over columns (the innermost dim kept) where a thread takes 2, 4 or 8 neighbouring outputs and loads each row's elements as one vector (a lone single-pass reduction): a sum over 40 rows of 8200 columns (the column schedule, 4 a thread), a max whose prologue reads a [8200] weight by vectors and whose epilogue adds it, float16 sums over 7 rows of 16 (8 a thread), a sum of few columns over 5003 rows (the split's partial kernel over columns, 4 a thread), a product over 6 columns (2 a thread), a mean over 5 columns (no vectors), int32 sums
module Examples.RedColumnsVec

open TorchSharp

[<Kgen.Entry("float32[40,8200], float32[24,8200], float32[8200], float16[20,7,16], float32[5003,8], float32[30,6], float32[10,5], int32[33,12]")>]
let red_columns_vec =
    <@ fun (a: torch.Tensor) (c: torch.Tensor) (b: torch.Tensor) (h: torch.Tensor) (y: torch.Tensor) (z: torch.Tensor) (w: torch.Tensor) (n: torch.Tensor) ->
        (a.sum(0L),
         (c * b).amax(0L) + b,
         h.sum(1L),
         y.sum(0L),
         (z * 0.01f + 1.0f).prod(0L),
         w.mean([| 0L |], keepdim = true),
         n.sum(0L)) @>
