// act_softplus_default: softplus with beta=1, threshold=20 filled in (x * 3 reaches the threshold)
module Examples.ActSoftplusDefault

open TorchSharp

[<Kgen.Entry("float32[500]")>]
let act_softplus_default =
    <@ fun (x: torch.Tensor) ->
        let z = x * 3.0
        (z.softplus(), torch.nn.functional.softplus(z)) @>
