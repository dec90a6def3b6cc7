// cast_bool_mask_mul: bool mask cast to float32 (to_type(torch.float32)) times a tensor
module Examples.CastBoolMaskMul

open TorchSharp

[<Kgen.Entry("bool[16,16], float32[16,16]")>]
let cast_bool_mask_mul =
    <@ fun (p: torch.Tensor) (x: torch.Tensor) -> x * p.to_type(torch.float32) @>
