// where_method_receiver: x.where(cond, y) == torch.where(cond, x, y): the receiver is x, not the condition
module Examples.WhereMethodReceiver

open TorchSharp

[<Kgen.Entry("bool[100], float32[100], float32[100]")>]
let where_method_receiver =
    <@ fun (c: torch.Tensor) (x: torch.Tensor) (y: torch.Tensor) ->
        (x.where(c, y), torch.where(c, y, x)) @>
