// scalar_param_int_double: int and float parameters: (x + k) * d on an int32 tensor -> float32
module Examples.ScalarParamIntDouble

open TorchSharp

let scalar_param_int_double =
    <@ fun (x: torch.Tensor) (k: int) (d: float) -> (x + k) * d @>
