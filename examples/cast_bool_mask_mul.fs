// cast_bool_mask_mul: bool mask cast to float32 (to_type(torch.float32)) times a tensor
module Examples.CastBoolMaskMul

open TorchSharp

let cast_bool_mask_mul =
    <@ fun (p: torch.Tensor) (x: torch.Tensor) -> x * p.to_type(torch.float32) @>
