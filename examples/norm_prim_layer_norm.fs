// norm_prim_layer_norm: layer norm by hand: let mean = x.mean([|-1L|], true) in let var = (x - mean).pow(2.0f).mean([|-1L|], true) in (x - mean) / torch.sqrt(var + 1e-5f) * w + b, rows of 457
module Examples.NormPrimLayerNorm

open TorchSharp

[<Kgen.Entry("float32[457,457], float32[457], float32[457]")>]
let norm_prim_layer_norm =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        let mean = x.mean([| -1L |], true)
        let var = (x - mean).pow(2.0f.ToScalar()).mean([| -1L |], true)
        (x - mean) / torch.sqrt(var + 1e-05f) * w + b @>
