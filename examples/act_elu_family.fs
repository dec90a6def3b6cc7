// act_elu_family: elu (default alpha, functional alpha, alpha/scale/input_scale), celu, selu
module Examples.ActEluFamily

open TorchSharp

[<Kgen.Entry("float32[400]")>]
let act_elu_family =
    <@ fun (x: torch.Tensor) ->
        (x.elu(),
         torch.nn.functional.elu(x, 0.5),
         x.elu(1.0f.ToScalar(), 2.0f.ToScalar(), 0.5f.ToScalar()),
         x.celu(),
         torch.nn.functional.selu(x)) @>
