// red_sym_3d: ["B", "T", 67]: centering over the last dim, and a sum over both symbolic dims
module Examples.RedSym3d

open TorchSharp

[<Kgen.Entry("float32[B,T,67]")>]
let red_sym_3d =
    <@ fun (x: torch.Tensor) -> (x - x.mean([| -1L |], true), x.sum([| 0L; 1L |])) @>
