// index_bool_mask: x.[mask] with a bool tensor selects a data-dependent number of elements (PyTorch's boolean advanced indexing)
module Bad.IndexBoolMask

open TorchSharp

[<Kgen.Entry("float32[4,5], bool[4]")>]
let index_bool_mask =
    <@ fun (x: torch.Tensor) (m: torch.Tensor) -> x.[torch.TensorIndex.Tensor m] + 1.0f @>
