// cf_captured_weights: captured tensors (a closure's weights) used only inside a loop body: for i in 1 .. 5 do h <- tanh(h * w + bias)
module Examples.CfCapturedWeights

open TorchSharp

[<Kgen.Entry("float32[3,16], w=float32[16], bias=float32[16]")>]
let cf_captured_weights (w: torch.Tensor) (bias: torch.Tensor) =
    <@ fun (x: torch.Tensor) ->
        let mutable h = x
        for i in 1 .. 5 do
            h <- torch.tanh(h * w + bias)
        h @>
