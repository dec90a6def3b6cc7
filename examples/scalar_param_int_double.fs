// scalar_param_int_double: int and float parameters: (x + k) * d on an int32 tensor -> float32
module Examples.ScalarParamIntDouble

open TorchSharp

[<Kgen.Entry("int32[50], int32, float64")>]
let scalar_param_int_double =
    <@ fun (x: torch.Tensor) (k: int) (d: float) -> (x + k) * d @>
