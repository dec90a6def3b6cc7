// range_step_runtime: a range whose step is a size known only at run time (`0L .. x.shape.[1] .. n`): the step must be known when kgen compiles (F# raises at a step of 0, which kernels cannot)
module Bad.RangeStepRuntime

open TorchSharp

[<Kgen.Entry("float32[N,M]")>]
let range_step_runtime =
    <@ fun (x: torch.Tensor) ->
        let mutable acc = x.[0L]
        for t in 0L .. x.shape.[1] .. x.shape.[0] - 1L do
            acc <- acc + x.[t]
        acc @>
