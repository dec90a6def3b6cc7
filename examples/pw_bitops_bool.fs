// pw_bitops_bool: &&& ||| ^^^ on bool tensors
module Examples.PwBitopsBool

open TorchSharp

let pw_bitops_bool =
    <@ fun (p: torch.Tensor) (q: torch.Tensor) (r: torch.Tensor) -> (p ^^^ (q &&& r)) ||| q @>
