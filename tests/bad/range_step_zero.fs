// range_step_zero: a range whose step is 0 (`0L .. 0L .. n - 1L`): F#'s own error ("The step of a range cannot be zero."), at the step
module Bad.RangeStepZero

open TorchSharp

[<Kgen.Entry("float32[N,4]")>]
let range_step_zero =
    <@ fun (x: torch.Tensor) ->
        let mutable acc = x.[0L]
        for t in 0L .. 0L .. x.shape.[0] - 1L do
            acc <- acc + x.[t]
        acc @>
