// norm_prim_softmax: softmax by hand over rows of 67: let m = x.amax([|-1L|], true) in let e = (x - m).exp() in e / e.sum(-1L, true)
module Examples.NormPrimSoftmax

open TorchSharp

[<Kgen.Entry("float32[1024,67]")>]
let norm_prim_softmax =
    <@ fun (x: torch.Tensor) ->
        let m = x.amax([| -1L |], true)
        let e = (x - m).exp()
        e / e.sum(-1L, true) @>
