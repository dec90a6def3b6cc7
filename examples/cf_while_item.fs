// cf_while_item: while y.abs().max().item<float32>() > abs limit + 0.5f do y <- y * 0.5f: a data-dependent while (one device-to-host read per test), trip count from the data
module Examples.CfWhileItem

open TorchSharp

[<Kgen.Entry("float32[5,7], float32")>]
let cf_while_item =
    <@ fun (x: torch.Tensor) (limit: float32) ->
        let mutable y = x
        while y.abs().max().item<float32>() > abs limit + 0.5f do
            y <- y * 0.5f
        y @>
