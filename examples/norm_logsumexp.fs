// norm_logsumexp: torch.logsumexp(T, Int64, Boolean) and x.logsumexp(Int64, Boolean) on [67, 4097]: rows (keepdim false / true), columns (keepdim false / true)
module Examples.NormLogsumexp

open TorchSharp

[<Kgen.Entry("float32[67,4097]")>]
let norm_logsumexp =
    <@ fun (x: torch.Tensor) ->
        (torch.logsumexp(x, -1L),
         x.logsumexp(1L, true),
         x.logsumexp(0L),
         torch.logsumexp(x, 0L, true)) @>
