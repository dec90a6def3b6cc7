// red_matrix_mid_f32: reductions over the middle dim of a symbolic ["A", "R", "C"] float32 (strided rows): sum, amax keepdim, argmax, var, logsumexp, softmax, cumsum
module Examples.RedMatrixMidF32

open TorchSharp

[<Kgen.Entry("float32[A,R,C]")>]
let red_matrix_mid_f32 =
    <@ fun (x: torch.Tensor) ->
        (x.sum(1L),
         x.amax([| 1L |], true),
         x.argmax(1L),
         x.var(1L),
         x.logsumexp(1L),
         x.softmax(1L),
         x.cumsum(1L)) @>
