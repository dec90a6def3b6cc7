// outer_not_vector: outer of a 2-D tensor (outer takes vectors)
module Bad.OuterNotVector

open TorchSharp

[<Kgen.Entry("float32[2,3], float32[2]")>]
let outer_not_vector =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.outer(a, b) @>
