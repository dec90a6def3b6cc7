// like_empty_shape_only: empty_like used only for its shape / dtype (its content is never read)
module Examples.LikeEmptyShapeOnly

open TorchSharp

[<Kgen.Entry("float32[12,5]")>]
let like_empty_shape_only =
    <@ fun (x: torch.Tensor) ->
        (torch.ones_like(torch.empty_like(x)) + x,
         torch.zeros_like(x.empty_like(torch.ScalarType.Int16))) @>
