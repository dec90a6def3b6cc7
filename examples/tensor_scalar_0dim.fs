// tensor_scalar_0dim: torch.tensor(2.5) is a float64 0-dim tensor (does not promote float32), tensor(2f), tensor(3L, Int32)
module Examples.TensorScalar0dim

open TorchSharp

[<Kgen.Entry("float32[4,6]")>]
let tensor_scalar_0dim =
    <@ fun (x: torch.Tensor) ->
        (x * torch.tensor(2.5),
         x + torch.tensor(2.0f),
         x.to_type(torch.int32) + torch.tensor(3L, torch.ScalarType.Int32)) @>
