// rand_in_loop: dropout inside a loop over a run-time count: kgen fixes a random op's stream when it compiles, so every iteration would draw the same mask
module Bad.RandInLoop

open TorchSharp

[<Kgen.Entry("float32[4], int32")>]
let rand_in_loop =
    <@ fun (x: torch.Tensor) (n: int) ->
        let mutable y = x
        for _ in 1 .. n do
            y <- torch.nn.functional.dropout(y, 0.5, true)
        y @>
