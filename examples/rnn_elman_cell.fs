// rnn_elman_cell: one Elman RNN step with linear, h' = tanh(x Wih^T + bih + h Whh^T + bhh) at RNN sizes: both small products folded into the pointwise kernel, the step is ONE kernel
module Examples.RnnElmanCell

open TorchSharp

[<Kgen.Entry("float32[4,10], float32[4,16], float32[16,10], float32[16,16], float32[16], float32[16]")>]
let rnn_elman_cell =
    <@ fun (x: torch.Tensor) (h: torch.Tensor) (wih: torch.Tensor) (whh: torch.Tensor) (bih: torch.Tensor) (bhh: torch.Tensor) ->
        torch.tanh(torch.nn.functional.linear(x, wih, bih) + torch.nn.functional.linear(h, whh, bhh)) @>
