// index_advanced: PyTorch's advanced indexing with several integer tensors: x.[t1, t2] gathers at the broadcast index pairs, the result's dims in place when the indexed dims are adjacent (x.[:, r, c]) and first when a slice separates them (x.[r, :, c]), integers applied first (x.[r, 0, c]); negative indices count from the end; one gather read inside the consumer's kernel
module Examples.IndexAdvanced

open TorchSharp
open type TorchSharp.torch

[<Kgen.Entry("float32[5,6,7], int64[3,1] in [-5, 5), int64[4] in [-6, 6), int64[3,4] in [-7, 7)")>]
let index_advanced =
    <@ fun (x: torch.Tensor) (r: torch.Tensor) (c: torch.Tensor) (d: torch.Tensor) ->
        let pairs = x.[TensorIndex.Tensor r, TensorIndex.Tensor c] // [3,4,7]: dims in place
        let inner = x.[TensorIndex.Colon, TensorIndex.Tensor c, TensorIndex.Tensor(d.[TensorIndex.Single 0L])] // [5,4]
        let apart = x.[TensorIndex.Tensor r, TensorIndex.Colon, TensorIndex.Tensor d] // [3,4,6]: broadcast dims first
        let withInt = x.[TensorIndex.Tensor r, TensorIndex.Single 0L, TensorIndex.Tensor d] // [3,4]: the integer applied first
        (pairs * 2.0f, inner + 1.0f, apart.relu(), withInt - x.[TensorIndex.Single 1L, TensorIndex.Single 2L, TensorIndex.Single 3L]) @>

[<Kgen.Entry("float32[4,6,3], int32[2,5] in [0, 4), int32[5] in [0, 6)")>]
let index_advanced_int32 =
    <@ fun (x: torch.Tensor) (i: torch.Tensor) (j: torch.Tensor) ->
        x.[TensorIndex.Tensor i, TensorIndex.Tensor j, TensorIndex.Ellipsis].sum(-1L) @>
