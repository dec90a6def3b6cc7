// rnn_gru_cell: one GRU step as PyTorch's GRUCell computes it (r, z, n from x Wih^T + bih and h Whh^T + bhh, n = tanh(gi_n + r * gh_n), h' = (1 - z) n + z h), float64: ONE kernel
module Examples.RnnGruCell

open TorchSharp

[<Kgen.Entry("float64[2,7], float64[2,9], float64[27,7], float64[27,9], float64[27], float64[27]")>]
let rnn_gru_cell =
    <@ fun (x: torch.Tensor) (h: torch.Tensor) (wih: torch.Tensor) (whh: torch.Tensor) (bih: torch.Tensor) (bhh: torch.Tensor) ->
        let gi = torch.nn.functional.linear(x, wih, bih).chunk(3L, 1L)
        let gh = torch.nn.functional.linear(h, whh, bhh).chunk(3L, 1L)
        let r = torch.sigmoid(gi.[0] + gh.[0])
        let z = torch.sigmoid(gi.[1] + gh.[1])
        let n = torch.tanh(gi.[2] + r * gh.[2])
        (1.0 - z) * n + z * h @>
