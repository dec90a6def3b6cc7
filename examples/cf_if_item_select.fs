// cf_if_item_select: if x.mean().item<float32>() > 0 then x * 2 else x - 1: pure branches of one type become a select whose condition is computed on the device (no read back)
module Examples.CfIfItemSelect

open TorchSharp

[<Kgen.Entry("float32[4,9]")>]
let cf_if_item_select =
    <@ fun (x: torch.Tensor) -> if x.mean().item<float32>() > 0.0f then x * 2.0f else x - 1.0f @>
