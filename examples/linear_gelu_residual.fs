// linear_gelu_residual: gelu(linear(x, w, b)) + r as ONE kernel: the bias, the activation and the residual fused into the product's store
module Examples.LinearGeluResidual

open TorchSharp

[<Kgen.Entry("float32[N,32], float32[48,32], float32[48], float32[N,48]")>]
let linear_gelu_residual =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) (r: torch.Tensor) ->
        torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b)) + r @>
