// cf_item_many_elements: item() needs a tensor of exactly one element
module Bad.CfItemManyElements

open TorchSharp

[<Kgen.Entry("float32[4]")>]
let cf_item_many_elements =
    <@ fun (x: torch.Tensor) ->
        let s = x.item<float32>()
        x * s @>
