// act_silu_sigmoid_tanh: silu (functional and Tensor), functional sigmoid and tanh
module Examples.ActSiluSigmoidTanh

open TorchSharp

[<Kgen.Entry("float32[600]")>]
let act_silu_sigmoid_tanh =
    <@ fun (x: torch.Tensor) ->
        (torch.nn.functional.silu(x),
         x.silu(),
         torch.nn.functional.sigmoid(x),
         torch.nn.functional.tanh(x)) @>
