// let_shadowing: let y = x + 1 in let y = y * y in y - x: two distinct vars named y
module Examples.LetShadowing

open TorchSharp

[<Kgen.Entry("float32[64]")>]
let let_shadowing =
    <@ fun (x: torch.Tensor) ->
        let y = x + 1.0f
        let y = y * y
        y - x @>
