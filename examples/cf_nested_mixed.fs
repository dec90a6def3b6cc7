// cf_nested_mixed: a while inside an if inside a for, with a scalar counter and the tensor carried through all three: for i in 1 .. n do (if i % 2 = 0 then y <- y * 0.5f else while max |y| < 4 do y <- y * 2 + 0.1); count
module Examples.CfNestedMixed

open TorchSharp

[<Kgen.Entry("float32[3,5], int32")>]
let cf_nested_mixed =
    <@ fun (x: torch.Tensor) (n: int) ->
        let mutable y = x * 0.01f
        let mutable count = 0
        for i in 1 .. n do
            if i % 2 = 0 then
                y <- y * 0.5f
            else
                while y.abs().max().item<float32>() < 4.0f do
                    y <- y * 2.0f + 0.1f
            count <- count + 1
        (y, count) @>
