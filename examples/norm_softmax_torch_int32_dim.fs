// norm_softmax_torch_int32_dim: torch.softmax(input, Int32 dim, dtype): dim -1 / 1 (rows of 67) and 0 (columns of 457) of [457, 67], dtype float64; int32 [1024, 7] with dtype float32
module Examples.NormSoftmaxTorchInt32Dim

open TorchSharp

[<Kgen.Entry("float32[457,67], int32[1024,7]")>]
let norm_softmax_torch_int32_dim =
    <@ fun (x: torch.Tensor) (n: torch.Tensor) ->
        (torch.softmax(x, -1),
         torch.softmax(x, 1),
         torch.softmax(x, 0),
         torch.softmax(x, -1, torch.float64),
         torch.softmax(n, -1, torch.float32)) @>
