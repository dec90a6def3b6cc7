// chain_mish_manual: mish written out: x * tanh(softplus(x))
module Examples.ChainMishManual

open TorchSharp

[<Kgen.Entry("float32[700]")>]
let chain_mish_manual =
    <@ fun (x: torch.Tensor) -> x * torch.tanh(torch.nn.functional.softplus(x)) @>
