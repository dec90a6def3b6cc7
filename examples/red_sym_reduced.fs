// red_sym_reduced: a symbolic reduced size [67, "K"]: amax, sum keepdim and mean over K
module Examples.RedSymReduced

open TorchSharp

[<Kgen.Entry("float32[67,K]")>]
let red_sym_reduced =
    <@ fun (x: torch.Tensor) -> (x.amax([| 1L |]), x.sum(1L, true), x.mean([| -1L |])) @>
