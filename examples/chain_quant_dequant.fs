// chain_quant_dequant: fake quantization: round(x / s).clamp(-128, 127) to int8, back to float32 * s
module Examples.ChainQuantDequant

open TorchSharp

[<Kgen.Entry("float32[64,64], float32")>]
let chain_quant_dequant =
    <@ fun (x: torch.Tensor) (s: float32) ->
        let q = (x / s).round().clamp((-128).ToScalar(), (127).ToScalar()).to_type(torch.int8)
        (q.to_type(torch.float32) * s, q) @>
