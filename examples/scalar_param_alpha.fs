// scalar_param_alpha: a float32 parameter passed as Scalar: x.add(y, s) (Scalar.op_Implicit(Var s))
module Examples.ScalarParamAlpha

open TorchSharp

[<Kgen.Entry("float32[10,10], float32[10,10], float32")>]
let scalar_param_alpha =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) (s: float32) -> x.add(y, s) @>
