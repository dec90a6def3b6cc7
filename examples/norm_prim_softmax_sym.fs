// norm_prim_softmax_sym: softmax by hand over rows of 4097 with a symbolic row count ["N", 4097]
module Examples.NormPrimSoftmaxSym

open TorchSharp

[<Kgen.Entry("float32[N,4097]")>]
let norm_prim_softmax_sym =
    <@ fun (x: torch.Tensor) ->
        let m = x.amax([| -1L |], true)
        let e = (x - m).exp()
        e / e.sum(-1L, true) @>
