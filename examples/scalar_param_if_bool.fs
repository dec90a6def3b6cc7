// scalar_param_if_bool: a bool parameter selecting the tensor expression: if flag then relu x else -x
module Examples.ScalarParamIfBool

open TorchSharp

[<Kgen.Entry("float32[64], bool")>]
let scalar_param_if_bool =
    <@ fun (x: torch.Tensor) (flag: bool) -> if flag then x.relu() else -x @>
