// bcast_where_3way: where(c [5,1,1], a [1,7,1] f32, b [1,1,9] f16) -> [5,7,9] float32
module Examples.BcastWhere3way

open TorchSharp

[<Kgen.Entry("bool[5,1,1], float32[1,7,1], float16[1,1,9]")>]
let bcast_where_3way =
    <@ fun (c: torch.Tensor) (a: torch.Tensor) (b: torch.Tensor) -> torch.where(c, a, b) @>
