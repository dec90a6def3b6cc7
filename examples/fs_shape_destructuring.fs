// fs_shape_destructuring: sizes taken apart as real F# model code does (a tuple of x.size(i),
// x.shape.[i], a let-bound shape array): all static at specialization. (F# quotations cannot
// contain array patterns: `match x.shape with [| b; t; c |]` is a compile error, FS0452.)
module Examples.FsShapeDestructuring

open TorchSharp

[<Kgen.Entry("float32[2,5,8], float32[8]")>]
let fs_shape_destructuring =
    <@ fun (x: torch.Tensor) (g: torch.Tensor) ->
        let shape = x.shape
        let b, t, c = shape.[0], shape.[1], shape.[2]
        let b2, t2 = x.size(0), x.size(1)
        let scale = 1.0f / float32 (c * t2)
        (x * g * scale + float32 (b * b2)) / float32 t @>
