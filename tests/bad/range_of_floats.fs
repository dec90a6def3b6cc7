// range_of_floats: a loop over a float32 range (`0.0f .. 0.5f .. 2.0f`): kgen compiles ranges of integers, and says so at the range
module Bad.RangeOfFloats

open TorchSharp

[<Kgen.Entry("float32[3,4]")>]
let range_of_floats =
    <@ fun (x: torch.Tensor) ->
        let mutable acc = x
        for s in 0.0f .. 0.5f .. 2.0f do
            acc <- acc + s
        acc @>
