// norm_prim_logsumexp: logsumexp by hand (keepdim): let m = x.amax([|-1L|], true) in (x - m).exp().sum(-1L, true).log() + m, rows of 457
module Examples.NormPrimLogsumexp

open TorchSharp

[<Kgen.Entry("float32[457,457]")>]
let norm_prim_logsumexp =
    <@ fun (x: torch.Tensor) ->
        let m = x.amax([| -1L |], true)
        (x - m).exp().sum(-1L, true).log() + m @>
