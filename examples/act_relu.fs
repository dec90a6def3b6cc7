// act_relu: relu / relu6: Tensor methods and torch.nn.functional (inplace=false filled in)
module Examples.ActRelu

open TorchSharp

[<Kgen.Entry("float32[4,250]")>]
let act_relu =
    <@ fun (x: torch.Tensor) ->
        (x.relu(), torch.nn.functional.relu(x), x.relu6(), torch.nn.functional.relu6(x * 0.8f)) @>
