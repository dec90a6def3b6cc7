// bin_pow_tensor_f32: pow with a tensor exponent (static and instance)
module Examples.BinPowTensorF32

open TorchSharp

[<Kgen.Entry("float32[300], float32[300]")>]
let bin_pow_tensor_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (torch.pow(x.abs() + 0.5f, y * 0.25f), (x.abs() + 1).pow(y.abs() * 0.1)) @>
