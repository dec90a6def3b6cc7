// cf_int64_ranges: loops over TorchSharp's int64 sizes as they are written — `for t in 0L .. x.shape.[0] - 1L`, a strided `0L .. 2L .. n - 1L` and a reversed `n - 1L .. -1L .. 0L` (F# quotes each as a loop over the op_Range / op_RangeStep sequence): host-plan loops over a run-time size
module Examples.CfInt64Ranges

open TorchSharp

[<Kgen.Entry("float32[T,16], float32[16]")>]
let cf_int64_ranges =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        let n = x.shape.[0]
        // a recurrence over every step
        let mutable h = torch.zeros_like (x.[0L])
        for t in 0L .. n - 1L do
            h <- torch.tanh (x.[t] + h * w)
        // every other step
        let mutable even = torch.zeros_like (x.[0L])
        for t in 0L .. 2L .. n - 1L do
            even <- even + x.[t]
        // backwards, as the second direction of a bidirectional scan
        let mutable back = torch.zeros_like (x.[0L])
        for t in n - 1L .. -1L .. 0L do
            back <- torch.tanh (x.[t] + back * w)
        h, even, back @>
