// act_leaky_relu: leaky_relu: Tensor (Scalar slope) and functional (default 0.01 and 0.3)
module Examples.ActLeakyRelu

open TorchSharp

[<Kgen.Entry("float32[333]")>]
let act_leaky_relu =
    <@ fun (x: torch.Tensor) ->
        (x.leaky_relu(0.2),
         torch.nn.functional.leaky_relu(x),
         torch.nn.functional.leaky_relu(x, 0.3)) @>
