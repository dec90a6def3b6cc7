// zero_dim_inputs: 0-dim tensors (shape []) in and out
module Examples.ZeroDimInputs

open TorchSharp

[<Kgen.Entry("float32[], float32[]")>]
let zero_dim_inputs =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x * y + x.exp() @>
