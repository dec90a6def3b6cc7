// red_mean_int_dtype: mean with an integer dtype (torch.int64): mean's dtype must be floating
module Bad.RedMeanIntDtype

open TorchSharp

[<Kgen.Entry("float32[4,7]")>]
let red_mean_int_dtype =
    <@ fun (x: torch.Tensor) -> x.mean([| 1L |], false, torch.int64) @>
