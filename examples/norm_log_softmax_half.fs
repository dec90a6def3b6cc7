// norm_log_softmax_half: log_softmax of float16 [67, 1024] (as float32 and as is) and bfloat16 [457, 67] (nn.functional: bfloat16; special with dtype float32, columns)
module Examples.NormLogSoftmaxHalf

open TorchSharp

[<Kgen.Entry("float16[67,1024], bfloat16[457,67]")>]
let norm_log_softmax_half =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) ->
        (h.log_softmax(-1L, torch.float32),
         h.log_softmax(-1L),
         torch.nn.functional.log_softmax(g, -1L),
         torch.special.log_softmax(g, 0L, torch.float32)) @>
