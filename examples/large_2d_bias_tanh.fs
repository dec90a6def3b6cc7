// large_2d_bias_tanh: 64 x 1000 with a [1000] bias: tanh(x * 2.0 + b)
module Examples.Large2dBiasTanh

open TorchSharp

[<Kgen.Entry("float32[64,1000], float32[1000]")>]
let large_2d_bias_tanh =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) -> (x * 2.0 + b).tanh() @>
