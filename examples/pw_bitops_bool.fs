// pw_bitops_bool: &&& ||| ^^^ on bool tensors
module Examples.PwBitopsBool

open TorchSharp

[<Kgen.Entry("bool[9,9], bool[9,9], bool[9,9]")>]
let pw_bitops_bool =
    <@ fun (p: torch.Tensor) (q: torch.Tensor) (r: torch.Tensor) -> (p ^^^ (q &&& r)) ||| q @>
