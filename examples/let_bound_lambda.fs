// let_bound_lambda: let act = fun t -> ... applied twice with Application
module Examples.LetBoundLambda

open TorchSharp

let let_bound_lambda =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        let act = fun (t: torch.Tensor) -> t * t.sigmoid()
        act x + act (y * 2.0f) @>
