// fs_squeezed_mean_broadcast: a mean without keepdim read by an output of the rows' shape: on a square [8, 8] the 8 row means broadcast along the columns (PyTorch's right alignment), so the output is not a row output of the mean's kernel (kgen fuzz, seed 741, found kgen reading them per row)
module Examples.FsSqueezedMeanBroadcast

open TorchSharp

[<Kgen.Entry("float32[8,8]")>]
let fs_squeezed_mean_broadcast =
    <@ fun (x: torch.Tensor) -> x / (x.mean([| 1L |]).abs() + 1.0f) @>
