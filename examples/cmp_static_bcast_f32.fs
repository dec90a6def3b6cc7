// cmp_static_bcast_f32: torch.eq/ne/lt/le/gt/ge static forms with broadcasting [40,25] vs [1,25]
module Examples.CmpStaticBcastF32

open TorchSharp

[<Kgen.Entry("float32[40,25], float32[1,25]")>]
let cmp_static_bcast_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (torch.eq(x, y),
         torch.ne(x, y),
         torch.lt(x, y),
         torch.le(x, y),
         torch.gt(x, y),
         torch.ge(x, y)) @>
