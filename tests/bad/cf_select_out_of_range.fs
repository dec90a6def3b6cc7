// cf_select_out_of_range: select with a constant index outside the dimension
module Bad.CfSelectOutOfRange

open TorchSharp

let cf_select_out_of_range =
    <@ fun (x: torch.Tensor) -> x.``select``(0L, 4L) * 2.0f @>
