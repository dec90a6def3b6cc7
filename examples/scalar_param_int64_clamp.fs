// scalar_param_int64_clamp: an int64 parameter as a clamp bound: x.clamp_max(k) on int64
module Examples.ScalarParamInt64Clamp

open TorchSharp

[<Kgen.Entry("int64[80], int64")>]
let scalar_param_int64_clamp =
    <@ fun (x: torch.Tensor) (k: int64) -> x.clamp_max(k) @>
