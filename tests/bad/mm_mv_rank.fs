// mm_mv_rank: torch.mv with a matrix as the vector
module Bad.MmMvRank

open TorchSharp

[<Kgen.Entry("float32[3,4], float32[4,1]")>]
let mm_mv_rank =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.mv(a, b) @>
