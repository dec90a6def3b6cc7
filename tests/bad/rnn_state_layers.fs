// rnn_state_layers: a 2-layer nn.LSTM given an h0 of 3 layers (PyTorch: "Expected hidden[0] size (2, 2, 5), got [3, 2, 5]"); before the check kgen ignored the third layer and returned a result
module Bad.RnnStateLayers

open System
open TorchSharp

torch.manual_seed(20261128L) |> ignore

let lstm = torch.nn.LSTM(4L, 5L, numLayers = 2L)

[<Kgen.Entry("float32[6,2,4], float32[3,2,5], float32[2,2,5]")>]
let rnn_state_layers =
    <@ fun (x: torch.Tensor) (h0: torch.Tensor) (c0: torch.Tensor) ->
        let struct (out, hn, cn) = lstm.forward(x, Nullable<struct (torch.Tensor * torch.Tensor)>(struct (h0, c0)))
        (out, hn, cn) @>
