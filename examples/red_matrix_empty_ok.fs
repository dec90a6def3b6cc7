// red_matrix_empty_ok: the reductions PyTorch defines on an empty reduced dim, over the last dim of a symbolic ["R", "C"] float32 (C = 0: sum 0, mean NaN, var NaN, logsumexp -inf, norm 0, empty softmax / cumsum)
module Examples.RedMatrixEmptyOk

open TorchSharp

[<Kgen.Entry("float32[R,C]")>]
let red_matrix_empty_ok =
    <@ fun (x: torch.Tensor) ->
        (x.sum(-1L),
         x.mean([| -1L |]),
         x.var(-1L),
         x.logsumexp(-1L),
         x.norm(-1),
         x.softmax(-1L),
         x.cumsum(-1L),
         x.sum(0L)) @>
