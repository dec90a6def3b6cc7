// like_full: full_like with an implicit Scalar (Double), a ToScalar Int32 with dtype int64, and used in arithmetic
module Examples.LikeFull

open TorchSharp

[<Kgen.Entry("float32[5,6]")>]
let like_full =
    <@ fun (x: torch.Tensor) ->
        (torch.full_like(x, 3.0),
         x.full_like((2).ToScalar(), torch.int64),
         torch.full_like(x, -1.5f) + x) @>
