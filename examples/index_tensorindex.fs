// index_tensorindex: x.[TensorIndex...] indexing as PyTorch's __getitem__: slices with steps, single indices, None, ellipsis, colon, and a tensor index (advanced indexing, as Embedding's expansion uses): views read inside the kernel, never copies
module Examples.IndexTensorIndex

open TorchSharp
open type TorchSharp.torch

/// x[:, 1:5:2] * 2 and x[0, None, ..., -1] + 1
[<Kgen.Entry("float32[3,6,4]")>]
let index_slices_none_ellipsis =
    <@ fun (x: torch.Tensor) ->
        let a = x.[TensorIndex.Colon, TensorIndex.Slice(1L, 5L, 2L)]
        let b = x.[TensorIndex.Single(0L), TensorIndex.None, TensorIndex.Ellipsis, TensorIndex.Single(-1L)]
        (a * 2.0f, b + 1.0f) @>

/// an embedding lookup: weight.[ids] (ids of any rank; negative ids count from the end)
[<Kgen.Entry("float32[10,4], int64[2,3]")>]
let index_embedding_rows =
    <@ fun (w: torch.Tensor) (ids: torch.Tensor) ->
        w.index([| TensorIndex.Tensor(ids % 10L - 5L) |]) * 0.5f @>
