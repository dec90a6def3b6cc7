// norm_logsumexp_int32: logsumexp of an int32 tensor is allowed and gives float32 (the default dtype), unlike softmax / var / norm: rows of 7 of [1024, 7], columns keepdim
module Examples.NormLogsumexpInt32

open TorchSharp

[<Kgen.Entry("int32[1024,7]")>]
let norm_logsumexp_int32 =
    <@ fun (n: torch.Tensor) -> (n.logsumexp(1L), torch.logsumexp(n, 0L, true)) @>
