// cf_host_transcendental: a carried float32 computed with exp on the host (a decaying step size): y <- y - lr * tanh y; lr <- lr * exp(-0.5f * float32 i); returns (y, lr)
module Examples.CfHostTranscendental

open TorchSharp

[<Kgen.Entry("float32[4,8], int32")>]
let cf_host_transcendental =
    <@ fun (x: torch.Tensor) (n: int) ->
        let mutable y = x
        let mutable lr = 1.0f
        for i in 1 .. n do
            y <- y - lr * y.tanh()
            lr <- lr * exp (-0.5f * float32 i)
        (y, lr) @>
