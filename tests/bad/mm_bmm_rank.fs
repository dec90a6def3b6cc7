// mm_bmm_rank: torch.bmm of a 2-D tensor (batch1 must be a 3D tensor)
module Bad.MmBmmRank

open TorchSharp

[<Kgen.Entry("float32[2,3], float32[1,3,4]")>]
let mm_bmm_rank =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.bmm(a, b) @>
