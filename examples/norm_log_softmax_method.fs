// norm_log_softmax_method: x.log_softmax(Int64 dim, dtype) on [457, 457]: rows, columns, rows as float64
module Examples.NormLogSoftmaxMethod

open TorchSharp

[<Kgen.Entry("float32[457,457]")>]
let norm_log_softmax_method =
    <@ fun (x: torch.Tensor) ->
        (x.log_softmax(-1L), x.log_softmax(0L), x.log_softmax(1L, torch.float64)) @>
