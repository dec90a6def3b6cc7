// loop_weight_panels: host-plan loops whose products read the same weight at every step — on the CPU device each product keeps its weight's packed panels in its scratch from the first step of a call to the last (KPR_KEPT, runtime/exec_keep.c) instead of packing them at every step: an Elman RNN written as linears over explicit weights, TorchSharp's nn.LSTM over a whole sequence (its weights captures), and a weight the loop itself rescales at every step (a loop-carried value: packed afresh each time)
module Examples.LoopWeightPanels

open System
open TorchSharp

// the module's weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261129L) |> ignore

let lstm = torch.nn.LSTM(48L, 96L)

[<Kgen.Entry("float32[T,8,64], float32[8,128], float32[128,64] in [-0.125, 0.125), float32[128,128] in [-0.09, 0.09), float32[128]")>]
let elman_linear_loop =
    <@ fun (x: torch.Tensor) (h0: torch.Tensor) (wih: torch.Tensor) (whh: torch.Tensor) (b: torch.Tensor) ->
        let mutable h = h0
        for t in 0 .. int x.shape.[0] - 1 do
            h <- torch.tanh(torch.nn.functional.linear(x.[int64 t], wih, b) + torch.nn.functional.linear(h, whh))
        h @>

[<Kgen.Entry("float32[T,5,48]")>]
let lstm_module_sequence =
    <@ fun (x: torch.Tensor) ->
        let struct (out, hn, cn) = lstm.forward(x, Nullable<struct (torch.Tensor * torch.Tensor)>())
        out @>

[<Kgen.Entry("float32[T,8,96], float32[96,96] in [-0.1, 0.1)")>]
let weight_rescaled_in_loop =
    <@ fun (x: torch.Tensor) (w0: torch.Tensor) ->
        let mutable h = x.[0L]
        let mutable w = w0
        for t in 1 .. int x.shape.[0] - 1 do
            h <- torch.tanh(torch.nn.functional.linear(h, w) + x.[int64 t])
            w <- w * 0.875
        h @>
