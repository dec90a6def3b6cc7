// cf_lstm: an LSTM cell over the T steps of x: the four gates from one [I, 4, H] / [H, 4, H] weight pair, gates picked with select (views of an intermediate), (h, c) carried as one tuple-valued mutable
module Examples.CfLstm

open TorchSharp

[<Kgen.Entry("float32[6,2,4], float32[4,4,5], float32[5,4,5], float32[4,5], float32[2,5], float32[2,5]")>]
let cf_lstm =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (u: torch.Tensor) (b: torch.Tensor) (h0: torch.Tensor) (c0: torch.Tensor) ->
        let mutable state = (h0, c0)
        for t in 0 .. int x.shape.[0] - 1 do
            let (h, c) = state
            let z = (x.[int64 t].unsqueeze(-1L).unsqueeze(-1L) * w).sum(1L) + (h.unsqueeze(-1L).unsqueeze(-1L) * u).sum(1L) + b
            let c2 = torch.sigmoid(z.``select``(1L, 1L)) * c + torch.sigmoid(z.``select``(1L, 0L)) * torch.tanh(z.``select``(1L, 2L))
            state <- (torch.sigmoid(z.``select``(1L, 3L)) * torch.tanh(c2), c2)
        state @>
