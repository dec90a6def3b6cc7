// let_bound_lambda: let act = fun t -> ... applied twice with Application
module Examples.LetBoundLambda

open TorchSharp

[<Kgen.Entry("float32[64], float32[64]")>]
let let_bound_lambda =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        let act = fun (t: torch.Tensor) -> t * t.sigmoid()
        act x + act (y * 2.0f) @>
