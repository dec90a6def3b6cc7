// act_softplus_beta: softplus with custom beta / threshold (positional and named)
module Examples.ActSoftplusBeta

open TorchSharp

[<Kgen.Entry("float32[500]")>]
let act_softplus_beta =
    <@ fun (x: torch.Tensor) ->
        (x.softplus(2.0, 5.0),
         torch.nn.functional.softplus(x, beta = 0.5),
         torch.nn.functional.softplus(x, 1.5, 4.0)) @>
