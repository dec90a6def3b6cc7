// rnn_seq_modules: TorchSharp's whole-sequence recurrent modules (nn.LSTM, nn.GRU, nn.RNN) expanded by the serializer into ATen's layer loops (Kgen.Recurrent): a 2-layer batch-first LSTM without states, a bidirectional GRU with its h0, a 2-layer bidirectional relu RNN without bias, an LSTM with (h0, c0) given; results (output, h_n[, c_n]) as TorchSharp returns them
module Examples.RnnSeqModules

open System
open TorchSharp

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261128L) |> ignore

let lstm2 = torch.nn.LSTM(5L, 7L, numLayers = 2L, batchFirst = true)
let bigru = torch.nn.GRU(5L, 6L, bidirectional = true)
let birnn = torch.nn.RNN(4L, 3L, numLayers = 2L, nonLinearity = torch.nn.NonLinearities.ReLU, bias = false, bidirectional = true)
let lstmS = torch.nn.LSTM(4L, 5L)

[<Kgen.Entry("float32[3,T,5]")>]
let lstm_two_layers_batch_first =
    <@ fun (x: torch.Tensor) ->
        let struct (out, hn, cn) = lstm2.forward(x, Nullable<struct (torch.Tensor * torch.Tensor)>())
        (out, hn, cn) @>

[<Kgen.Entry("float32[6,2,5], float32[2,2,6]")>]
let gru_bidirectional_h0 =
    <@ fun (x: torch.Tensor) (h0: torch.Tensor) ->
        let struct (out, hn) = bigru.forward(x, h0)
        (out, hn) @>

[<Kgen.Entry("float32[5,3,4]")>]
let rnn_relu_bidirectional_no_bias =
    <@ fun (x: torch.Tensor) ->
        let struct (out, hn) = birnn.call(x, null)
        (out, hn) @>

[<Kgen.Entry("float32[4,2,4], float32[1,2,5], float32[1,2,5]")>]
let lstm_given_state =
    <@ fun (x: torch.Tensor) (h0: torch.Tensor) (c0: torch.Tensor) ->
        let struct (out, hn, cn) = lstmS.forward(x, Nullable<struct (torch.Tensor * torch.Tensor)>(struct (h0, c0)))
        (out, hn, cn) @>
