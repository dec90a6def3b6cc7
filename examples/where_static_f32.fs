// where_static_f32: torch.where(cond, x, y) with the condition from gt
module Examples.WhereStaticF32

open TorchSharp

[<Kgen.Entry("float32[30,30], float32[30,30]")>]
let where_static_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> torch.where(x.gt(y), x, y * 2.0f) @>
