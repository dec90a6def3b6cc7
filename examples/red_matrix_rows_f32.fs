// red_matrix_rows_f32: every float reduction over the last dim of a symbolic ["R", "C"] float32: sum, mean, amax, amin keepdim, argmax, max(dim), var, std, logsumexp, norm, softmax, log_softmax, cumsum
module Examples.RedMatrixRowsF32

open TorchSharp

[<Kgen.Entry("float32[R,C]")>]
let red_matrix_rows_f32 =
    <@ fun (x: torch.Tensor) ->
        let struct (v, i) = x.max(-1L)
        (x.sum(-1L),
         x.mean([| -1L |]),
         x.amax([| -1L |]),
         x.amin([| -1L |], true),
         x.argmax(-1L),
         v,
         i,
         x.var(-1L),
         x.std(-1L, false, true),
         x.logsumexp(-1L),
         x.norm(-1),
         x.softmax(-1L),
         x.log_softmax(-1L),
         x.cumsum(-1L)) @>
