// rnn_lstm_cell: one LSTM step as PyTorch's LSTMCell computes it (gates = x Wih^T + bih + h Whh^T + bhh, chunked i, f, g, o): the products folded into the pointwise kernel that stores h' and c', ONE kernel
module Examples.RnnLstmCell

open TorchSharp

[<Kgen.Entry("float32[3,12], float32[3,20], float32[3,20], float32[80,12], float32[80,20], float32[80], float32[80]")>]
let rnn_lstm_cell =
    <@ fun (x: torch.Tensor) (h: torch.Tensor) (c: torch.Tensor) (wih: torch.Tensor) (whh: torch.Tensor) (bih: torch.Tensor) (bhh: torch.Tensor) ->
        let gates = torch.nn.functional.linear(x, wih, bih) + torch.nn.functional.linear(h, whh, bhh)
        let g = gates.chunk(4L, 1L)
        let c2 = torch.sigmoid(g.[1]) * c + torch.sigmoid(g.[0]) * torch.tanh(g.[2])
        let h2 = torch.sigmoid(g.[3]) * torch.tanh(c2)
        (h2, c2) @>
