// logical_bool: logical_and / or / xor / not on bool tensors
module Examples.LogicalBool

open TorchSharp

[<Kgen.Entry("bool[50], bool[50], bool[50]")>]
let logical_bool =
    <@ fun (p: torch.Tensor) (q: torch.Tensor) (r: torch.Tensor) -> torch.logical_xor(p.logical_and(q), r.logical_not()).logical_or(torch.logical_and(p, r)) @>
