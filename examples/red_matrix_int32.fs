// red_matrix_int32: integer reductions of a symbolic ["R", "C"] int32 over each dim: sum and prod (int64, wrapping: exact in any order), amax, argmax / argmin with ties, cumsum
module Examples.RedMatrixInt32

open TorchSharp

[<Kgen.Entry("int32[R,C]")>]
let red_matrix_int32 =
    <@ fun (n: torch.Tensor) ->
        (n.sum(-1L),
         n.prod(-1L),
         n.amax([| -1L |]),
         n.argmax(-1L),
         n.cumsum(-1L),
         n.sum(0L),
         n.prod(0L),
         n.amin([| 0L |]),
         n.argmin(0L),
         n.cumsum(0L)) @>
