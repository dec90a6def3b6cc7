// norm_prim_log_softmax: log_softmax by hand: let m = x.amax(...) in let s = x - m in s - s.exp().sum(-1L, true).log(), float32 rows of 67 and float64 rows of 1024
module Examples.NormPrimLogSoftmax

open TorchSharp

[<Kgen.Entry("float32[2000,67], float64[67,1024]")>]
let norm_prim_log_softmax =
    <@ fun (x: torch.Tensor) (d: torch.Tensor) ->
        let mx = x.amax([| -1L |], true)
        let sx = x - mx
        let md = d.amax([| -1L |], true)
        let sd = d - md
        (sx - sx.exp().sum(-1L, true).log(), sd - sd.exp().sum(-1L, true).log()) @>
