// red_max_all_empty: all-reduce max() of a tensor with no elements (PyTorch errors)
module Bad.RedMaxAllEmpty

open TorchSharp

[<Kgen.Entry("float32[0,5]")>]
let red_max_all_empty =
    <@ fun (x: torch.Tensor) -> x.max() @>
