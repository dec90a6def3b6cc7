// rand_draws: rand_like / randn_like (Tensor and torch forms, dtype overrides), torch.rand / torch.randn with sizes, bernoulli of probabilities — each a separate stream of kgen's Philox generator
module Examples.RandDraws

open TorchSharp

[<Kgen.Entry("float32[4,9], float32[4,9]")>]
let rand_draws_like =
    <@ fun (x: torch.Tensor) (p: torch.Tensor) ->
        x.rand_like(), torch.rand_like(x, dtype = torch.float64), x.randn_like(), torch.randn_like(x, dtype = torch.float16),
        torch.bernoulli(p.sigmoid()), p.sigmoid().bernoulli() @>

[<Kgen.Entry("float32[N,3]")>]
let rand_draws_sized =
    <@ fun (x: torch.Tensor) ->
        x + torch.rand(3L), torch.randn(2L, 3L, 4L), torch.rand([| 5L |], dtype = torch.bfloat16), x * torch.randn_like(x) @>
