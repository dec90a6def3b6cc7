// red_mean_of_int: mean of an int32 tensor without a floating dtype (PyTorch: could not infer output dtype)
module Bad.RedMeanOfInt

open TorchSharp

[<Kgen.Entry("int32[4,7]")>]
let red_mean_of_int =
    <@ fun (x: torch.Tensor) -> x.mean([| -1L |]) @>
