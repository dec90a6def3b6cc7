// red_prod_half: prod of float16 / bfloat16 factors x.sign() * 0.25 + 1 (exact in half: only the result rounds) over rows of 67 / 7 and all of [7, 7]; raw bfloat16 rows of 7 as float32, float16 [7, 7] as float64
module Examples.RedProdHalf

open TorchSharp

[<Kgen.Entry("float16[457,67], bfloat16[457,7], float16[7,7]")>]
let red_prod_half =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) (s: torch.Tensor) ->
        let ph = h.sign() * 0.25f + 1.0f
        (ph.prod(1L),
         ph.prod(-1L, true, torch.float32),
         (g.sign() * 0.25f + 1.0f).prod(-1L),
         g.prod(-1L, false, torch.float32),
         (s.sign() * 0.25f + 1.0f).prod(),
         s.prod(torch.float64)) @>
