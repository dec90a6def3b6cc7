// rnn_state_batch: an nn.GRU given an h0 of batch 1 for an input of batch 3 (PyTorch: "Expected hidden size (1, 3, 5), got [1, 1, 5]"); before the check kgen broadcast it over the batch
module Bad.RnnStateBatch

open TorchSharp

torch.manual_seed(20261128L) |> ignore

let gru = torch.nn.GRU(4L, 5L)

[<Kgen.Entry("float32[6,3,4], float32[1,1,5]")>]
let rnn_state_batch =
    <@ fun (x: torch.Tensor) (h0: torch.Tensor) ->
        let struct (out, hn) = gru.forward(x, h0)
        (out, hn) @>
