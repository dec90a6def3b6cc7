// norm_prim_softmax_axes: softmax by hand over dim 0 of [457, 67] (columns) and over the middle dim of [7, 457, 67]
module Examples.NormPrimSoftmaxAxes

open TorchSharp

[<Kgen.Entry("float32[457,67], float32[7,457,67]")>]
let norm_prim_softmax_axes =
    <@ fun (x: torch.Tensor) (z: torch.Tensor) ->
        let m0 = x.amax([| 0L |], true)
        let e0 = (x - m0).exp()
        let m1 = z.amax([| 1L |], true)
        let e1 = (z - m1).exp()
        (e0 / e0.sum(0L, true), e1 / e1.sum(1L, true)) @>
