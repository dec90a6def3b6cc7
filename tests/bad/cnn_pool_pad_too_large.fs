// cnn_pool_pad_too_large: avg_pool2d with padding larger than half the kernel
module Bad.CnnPoolPadTooLarge

open TorchSharp

[<Kgen.Entry("float32[2,3,8,8]")>]
let cnn_pool_pad_too_large =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.avg_pool2d(x, [| 2L; 2L |], [| 2L; 2L |], [| 2L; 2L |]) @>
