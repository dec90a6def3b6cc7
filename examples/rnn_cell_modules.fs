// rnn_cell_modules: TorchSharp's recurrent cell modules (LSTMCell, GRUCell, RNNCell with relu) expanded by the serializer into ATen's cell arithmetic; each step ONE kernel (the small products folded), an LSTMCell over the T steps of x one launch per step
module Examples.RnnCellModules

open System
open TorchSharp

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let lstm = torch.nn.LSTMCell(6L, 10L)
let gru = torch.nn.GRUCell(6L, 10L)
let rnn = torch.nn.RNNCell(6L, 10L, torch.nn.NonLinearities.ReLU)

[<Kgen.Entry("float32[3,6], float32[3,10], float32[3,10]")>]
let lstm_cell_step =
    <@ fun (x: torch.Tensor) (h: torch.Tensor) (c: torch.Tensor) ->
        let struct (h2, c2) = lstm.forward(x, Nullable<struct (torch.Tensor * torch.Tensor)>(struct (h, c)))
        (h2, c2) @>

[<Kgen.Entry("float32[3,6], float32[3,10]")>]
let gru_cell_step = <@ fun (x: torch.Tensor) (h: torch.Tensor) -> gru.forward(x, h) @>

[<Kgen.Entry("float32[3,6], float32[3,10]")>]
let rnn_relu_cell_step = <@ fun (x: torch.Tensor) (h: torch.Tensor) -> rnn.call(x, h) @>

[<Kgen.Entry("float32[6,3,6], float32[3,10], float32[3,10]")>]
let lstm_cell_loop =
    <@ fun (xs: torch.Tensor) (h0: torch.Tensor) (c0: torch.Tensor) ->
        let mutable h = h0
        let mutable c = c0
        for t in 0 .. int xs.shape.[0] - 1 do
            let struct (h2, c2) = lstm.forward(xs.[int64 t], Nullable<struct (torch.Tensor * torch.Tensor)>(struct (h, c)))
            h <- h2
            c <- c2
        h @>
