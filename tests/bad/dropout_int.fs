// dropout_int: dropout in training mode of an int64 tensor (PyTorch cannot scale integers by 1/(1-p))
module Bad.DropoutInt

open TorchSharp

[<Kgen.Entry("int64[4]")>]
let dropout_int =
    <@ fun (x: torch.Tensor) -> torch.nn.functional.dropout(x, 0.5, true) @>
