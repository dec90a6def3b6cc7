// norm_norm_p_not_constant: x.norm(p) with p a float32 parameter, not a constant: the kind of norm must be known at compile time
module Bad.NormNormPNotConstant

open TorchSharp

[<Kgen.Entry("float32[3,4], float32")>]
let norm_norm_p_not_constant =
    <@ fun (x: torch.Tensor) (p: float32) -> x.norm(p) @>
