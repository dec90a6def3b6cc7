// logical_on_numbers: logical ops on float32 / int8 operands (truthiness)
module Examples.LogicalOnNumbers

open TorchSharp

[<Kgen.Entry("float32[70], int8[70]")>]
let logical_on_numbers =
    <@ fun (x: torch.Tensor) (n: torch.Tensor) ->
        (torch.logical_and(x.relu(), n),
         x.relu().logical_or(n),
         torch.logical_not(n),
         torch.logical_xor(x.relu(), n)) @>
