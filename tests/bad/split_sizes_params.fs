// split_sizes_params: x.split(3L, 2L) binds to TorchSharp's split(params int64[] sizes), pieces of 3 and 2 along dim 0 of size 6: PyTorch's error, and what to write for pieces of 3 along dim 2
module Bad.SplitSizesParams

open TorchSharp

[<Kgen.Entry("float32[6,4,6]")>]
let split_sizes_params =
    <@ fun (x: torch.Tensor) ->
        let parts = x.split (3L, 2L)
        parts.[0] + parts.[1] @>
