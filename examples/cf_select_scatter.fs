// cf_select_scatter: a sequence loop that fills its output row by row with select_scatter (as nn.LSTM / GRU / RNN's expansion does, dotnet/Kgen/Recurrent.fs): from the second step on, each step's h is stored straight into row t of the carried buffer (passes/plan_inplace.c; the first step composes it, its buffer still held by the loop's initial zeros); walking forward and backward over an odd T; a buffer read again after the write and a slice along dim 1 (strided) fall back to the composed kernel every step; a constant negative index and a float64 src written into float32; an index offset by a run-time start (out of range when start < -T: PyTorch's error at run time; a negative run-time index is refused)
module Examples.CfSelectScatter

open TorchSharp

[<Kgen.Entry("float32[T,3,5], float32[5,6], float32[6,6], float32[3,6]")>]
let cf_scatter_rows =
    <@ fun (x: torch.Tensor) (wx: torch.Tensor) (wh: torch.Tensor) (h0: torch.Tensor) ->
        let steps = x.shape.[0]
        let mutable h = h0
        let mutable out = torch.zeros(steps, h0.shape.[0], h0.shape.[1])
        for t in 0L .. steps - 1L do
            h <- torch.tanh(x.[t].matmul(wx) + h.matmul(wh))
            out <- out.select_scatter(h, 0L, t)
        out, h @>

[<Kgen.Entry("float32[T,3,5], float32[5,6], float32[6,6], float32[3,6]")>]
let cf_scatter_rows_reverse =
    <@ fun (x: torch.Tensor) (wx: torch.Tensor) (wh: torch.Tensor) (h0: torch.Tensor) ->
        let steps = x.shape.[0]
        let mutable h = h0
        let mutable out = torch.zeros(steps, h0.shape.[0], h0.shape.[1])
        for k in 0L .. steps - 1L do
            let t = steps - 1L - k
            h <- torch.tanh(x.[t].matmul(wx) + h.matmul(wh))
            out <- torch.select_scatter(out, h, 0L, t)
        out @>

[<Kgen.Entry("float32[T,3,5], float32[5,6], float32[3,6]")>]
let cf_scatter_reread =
    <@ fun (x: torch.Tensor) (wx: torch.Tensor) (h0: torch.Tensor) ->
        let steps = x.shape.[0]
        let mutable h = h0
        let mutable out = torch.zeros(steps, h0.shape.[0], h0.shape.[1])
        let mutable acc = torch.zeros(h0.shape.[0], h0.shape.[1])
        for t in 0L .. steps - 1L do
            let old = out
            h <- torch.tanh(x.[t].matmul(wx) + h)
            out <- out.select_scatter(h, 0L, t)
            acc <- acc + old.sum(0L)
        out, acc @>

[<Kgen.Entry("float32[3,T,5], float32[5,6]")>]
let cf_scatter_dim1 =
    <@ fun (x: torch.Tensor) (wx: torch.Tensor) ->
        let steps = x.shape.[1]
        let mutable out = torch.zeros(x.shape.[0], steps, 6L)
        for t in 0L .. steps - 1L do
            out <- out.select_scatter(x.select(1L, t).matmul(wx).relu(), 1L, t)
        out @>

[<Kgen.Entry("float32[4,3], float64[3]")>]
let cf_scatter_const =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) ->
        let y = (a * 2.0f).select_scatter(b, 0L, -1L)
        y, torch.select_scatter(a, a.[0L] + 1.0f, 0L, 2L) @>

[<Kgen.Entry("float32[T,3], float32[3], int64 in [0, 1)")>]
let cf_scatter_offset =
    <@ fun (x: torch.Tensor) (v: torch.Tensor) (start: int64) ->
        let mutable out = x * 2.0f
        for k in 0L .. x.shape.[0] - 1L - start do
            out <- out.select_scatter(v * float32 k, 0L, start + k)
        out @>
