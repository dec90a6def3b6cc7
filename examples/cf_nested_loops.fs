// cf_nested_loops: nested loops over both leading dims: acc <- acc + x.[i, j] * float32 (i + j) (x.[i, j] a view)
module Examples.CfNestedLoops

open TorchSharp

[<Kgen.Entry("float32[5,6,8]")>]
let cf_nested_loops =
    <@ fun (x: torch.Tensor) ->
        let mutable acc = torch.zeros_like(x.[0L, 0L])
        for i in 0 .. int x.shape.[0] - 1 do
            for j in 0 .. int x.shape.[1] - 1 do
                acc <- acc + x.[int64 i, int64 j] * float32 (i + j)
        acc @>
