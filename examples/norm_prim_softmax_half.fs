// norm_prim_softmax_half: softmax by hand in a [<ReflectedDefinition>] helper, applied to float16 rows of 1024 and bfloat16 rows of 67 (results stay half)
module Examples.NormPrimSoftmaxHalf

open TorchSharp

[<ReflectedDefinition>]
let softmaxRows (t: torch.Tensor) =
    let m = t.amax([| -1L |], true)
    let e = (t - m).exp()
    e / e.sum(-1L, true)

[<Kgen.Entry("float16[67,1024], bfloat16[457,67]")>]
let norm_prim_softmax_half =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) -> (softmaxRows h, softmaxRows g) @>
