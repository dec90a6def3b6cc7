// cf_while_count: a while with a tensor condition and a scalar counter carried beside the tensor: while n < steps && y.sum().item() < 1000 do y <- y * 1.5 + 1; n <- n + 1; returns (y, n)
module Examples.CfWhileCount

open TorchSharp

[<Kgen.Entry("float32[6], int32")>]
let cf_while_count =
    <@ fun (x: torch.Tensor) (steps: int) ->
        let mutable y = x
        let mutable n = 0
        while n < steps && y.sum().item<float32>() < 1000.0f do
            y <- y * 1.5f + 1.0f
            n <- n + 1
        (y, n) @>
