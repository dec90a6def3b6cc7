// cf_rnn_matmul: an Elman RNN over the T steps of x with matmul (x.[t] @ wx + h @ wh + b): a plan loop whose every step is ONE launch (both products folded into the step's pointwise kernel), K = 150 > 128 summed in blocks as the tiled kernel sums
module Examples.CfRnnMatmul

open TorchSharp

[<Kgen.Entry("float32[5,3,150], float32[150,24], float32[24,24], float32[24], float32[3,24]")>]
let cf_rnn_matmul =
    <@ fun (x: torch.Tensor) (wx: torch.Tensor) (wh: torch.Tensor) (b: torch.Tensor) (h0: torch.Tensor) ->
        let mutable h = h0
        for t in 0 .. int x.shape.[0] - 1 do
            h <- torch.tanh(x.[int64 t].matmul(wx) + h.matmul(wh) + b)
        h @>
