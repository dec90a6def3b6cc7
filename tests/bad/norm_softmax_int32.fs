// norm_softmax_int32: softmax of an int32 tensor without a floating dtype (TorchSharp passes dtype = int32; PyTorch has no integer softmax)
module Bad.NormSoftmaxInt32

open TorchSharp

[<Kgen.Entry("int32[3,4]")>]
let norm_softmax_int32 =
    <@ fun (n: torch.Tensor) -> torch.softmax(n, -1) @>
