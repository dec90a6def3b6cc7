// shape_rank_limit: a signature rank above kgen's maximum rank (9 dims)
module Bad.ShapeRankLimit

open TorchSharp

let shape_rank_limit =
    <@ fun (x: torch.Tensor) -> x.exp() @>
