// norm_prim_rmsnorm_capture: RMSNorm by hand with a captured weight: x * (x.square().mean([|-1L|], true) + 1e-6f).rsqrt() * w, rows of 1024
module Examples.NormPrimRmsnormCapture

open TorchSharp

[<Kgen.Entry("float32[67,1024], w=float32[1024]")>]
let norm_prim_rmsnorm_capture (w: torch.Tensor) =
    <@ fun (x: torch.Tensor) -> x * (x.square().mean([| -1L |], true) + 1e-06f).rsqrt() * w @>
