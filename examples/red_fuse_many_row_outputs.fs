// red_fuse_many_row_outputs: ten outputs over the rows of one reduction: x - m * k for k = 1 .. 10 with m = x.mean([|-1L|], true) on [33, 65] (more row outputs than one row kernel takes)
module Examples.RedFuseManyRowOutputs

open TorchSharp

[<Kgen.Entry("float32[33,65]")>]
let red_fuse_many_row_outputs =
    <@ fun (x: torch.Tensor) ->
        let m = x.mean([| -1L |], true)
        (x - m * 1.0f,
         x - m * 2.0f,
         x - m * 3.0f,
         x - m * 4.0f,
         x - m * 5.0f,
         x - m * 6.0f,
         x - m * 7.0f,
         x - m * 8.0f,
         x - m * 9.0f,
         x - m * 10.0f) @>
