// bin_float_power: float_power computes in float64 (float32 and int32 inputs)
module Examples.BinFloatPower

open TorchSharp

[<Kgen.Entry("float32[64], float32[64], int32[64], int32[64]")>]
let bin_float_power =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (n: torch.Tensor) (m: torch.Tensor) ->
        (torch.float_power(x.abs(), y), (n.abs() + 1).float_power(m)) @>
