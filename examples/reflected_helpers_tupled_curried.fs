// reflected_helpers_tupled_curried: two helpers: a tupled one (scaled (x, s)) and a curried one (shifted x c)
module Examples.ReflectedHelpersTupledCurried

open TorchSharp

[<ReflectedDefinition>]
let scaled (t: torch.Tensor, s: float32) =
    t * s

[<ReflectedDefinition>]
let shifted (t: torch.Tensor) (u: torch.Tensor) =
    (t - u).relu()

[<Kgen.Entry("float32[100], float32[100]")>]
let reflected_helpers_tupled_curried =
    <@ fun (x: torch.Tensor) (c: torch.Tensor) -> shifted (scaled (x, 2.0f)) c @>
