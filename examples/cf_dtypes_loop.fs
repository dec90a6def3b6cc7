// cf_dtypes_loop: loop-carried float16, bfloat16 and int32 tensors (rounded after every op in every iteration; integer arithmetic wraps): y <- y * 0.5 + x, w <- w * 0.75 + 1, z <- (z * 3 + i) % 1000
module Examples.CfDtypesLoop

open TorchSharp

[<Kgen.Entry("float16[8,16], bfloat16[5], int32[7], int32")>]
let cf_dtypes_loop =
    <@ fun (x: torch.Tensor) (v: torch.Tensor) (k: torch.Tensor) (n: int) ->
        let mutable y = x
        let mutable w = v
        let mutable z = k
        for i in 1 .. n do
            y <- y * 0.5f + x
            w <- w * 0.75f + 1.0f
            z <- (z * 3 + i) % 1000
        (y, w, z) @>
