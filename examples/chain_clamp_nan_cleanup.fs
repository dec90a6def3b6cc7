// chain_clamp_nan_cleanup: cleanup chain: nan_to_num, where(isfinite), clamp, clip
module Examples.ChainClampNanCleanup

open TorchSharp

[<Kgen.Entry("float32[40,50], float32[50]")>]
let chain_clamp_nan_cleanup =
    <@ fun (x: torch.Tensor) (s: torch.Tensor) ->
        let y = (x.log() * s).nan_to_num(0.0, 10.0, -10.0)
        torch.where(y.isfinite(), y.clamp((-5.0f).ToScalar(), 5.0f.ToScalar()), torch.zeros_like(y)).clip(-4.0f, 4.0f) @>
