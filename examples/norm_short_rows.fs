// norm_short_rows: reductions over rows much shorter than a warp take segments of one (several rows a warp, shuffles within each segment): softmax and layer_norm over rows of 3 (2 lanes a row, 1001 rows: the last block part full), log_softmax, logsumexp and sum over rows of 16 (128-bit loads, 2 lanes), float16 softmax over rows of 24, layer_norm and var over rows of 64 (8 lanes), softmax over rows of 200 (a warp: the persistent kernels take one up to 256), a transposed view's rows of 7 (strided), amax over two dims, int32 argmax and sum over rows of 10
module Examples.NormShortRows

open TorchSharp

[<Kgen.Entry("float32[1001,3], float32[67,16], float16[129,24], float32[33,64], float32[9,200], float32[40,7,12], int32[301,10]")>]
let norm_short_rows =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (h: torch.Tensor) (c: torch.Tensor) (d: torch.Tensor) (e: torch.Tensor) (n: torch.Tensor) ->
        (a.softmax(-1L),
         torch.nn.functional.layer_norm(a, [| 3L |]),
         b.log_softmax(-1L),
         b.logsumexp(-1L),
         b.sum(-1L),
         h.softmax(-1L),
         torch.nn.functional.layer_norm(c, [| 64L |]),
         c.var(-1L),
         d.softmax(-1L),
         e.transpose(1L, 2L).softmax(-1L),
         e.amax([| 1L; 2L |]),
         e.mean([| -1L |]),
         n.argmax(-1L),
         n.sum(-1L)) @>
