// rnn_input_rank: an nn.RNN given a rank-2 input [T, I] (PyTorch's C++ module: "input must have 3 dimensions, got 2"); before the check kgen misread it as a batch
module Bad.RnnInputRank

open TorchSharp

torch.manual_seed(20261128L) |> ignore

let rnn = torch.nn.RNN(4L, 5L)

[<Kgen.Entry("float32[6,4]")>]
let rnn_input_rank =
    <@ fun (x: torch.Tensor) ->
        let struct (out, hn) = rnn.call(x, null)
        (out, hn) @>
