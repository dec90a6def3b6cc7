// shape_rank_limit: a signature rank above kgen's maximum rank (9 dims)
module Bad.ShapeRankLimit

open TorchSharp

[<Kgen.Entry("float32[1,1,1,1,1,1,1,1,2]")>]
let shape_rank_limit =
    <@ fun (x: torch.Tensor) -> x.exp() @>
