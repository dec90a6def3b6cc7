// red_size_one_dims: reducing size-1 dims (a copy) and size-1 results: [1, 1024] over 0 / 1 / both keepdim, [1024, 1] over 1 / 0
module Examples.RedSizeOneDims

open TorchSharp

[<Kgen.Entry("float32[1,1024], float32[1024,1]")>]
let red_size_one_dims =
    <@ fun (a: torch.Tensor) (c: torch.Tensor) ->
        (a.sum(0L), a.sum(1L), a.amax([| 0L; 1L |], true), c.mean([| 1L |]), c.amin([| 0L |])) @>
