// norm_prim_rmsnorm_eps_param_sym: RMSNorm by hand with eps a float32 parameter and a weight parameter, symbolic rows ["N", 1024]
module Examples.NormPrimRmsnormEpsParamSym

open TorchSharp

[<Kgen.Entry("float32[N,1024], float32[1024], float32")>]
let norm_prim_rmsnorm_eps_param_sym =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (eps: float32) -> x * (x.square().mean([| -1L |], true) + eps).rsqrt() * w @>
