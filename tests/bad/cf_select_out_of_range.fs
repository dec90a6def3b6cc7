// cf_select_out_of_range: select with a constant index outside the dimension
module Bad.CfSelectOutOfRange

open TorchSharp

[<Kgen.Entry("float32[4,5]")>]
let cf_select_out_of_range =
    <@ fun (x: torch.Tensor) -> x.``select``(0L, 4L) * 2.0f @>
