// cf_rnn_elman: an Elman RNN over the T = x.shape.[0] steps of x: h <- tanh(x.[t] Wx + h Wh + b), the matrix products written as broadcast products and sums; a plan loop (one iteration = one region of kernels), x.[t] a view
module Examples.CfRnnElman

open TorchSharp

[<Kgen.Entry("float32[7,3,5], float32[5,6], float32[6,6], float32[6], float32[3,6]")>]
let cf_rnn_elman =
    <@ fun (x: torch.Tensor) (wx: torch.Tensor) (wh: torch.Tensor) (b: torch.Tensor) (h0: torch.Tensor) ->
        let mutable h = h0
        for t in 0 .. int x.shape.[0] - 1 do
            h <- torch.tanh((x.[int64 t].unsqueeze(-1L) * wx).sum(1L) + (h.unsqueeze(-1L) * wh).sum(1L) + b)
        h @>
