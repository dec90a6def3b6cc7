// red_prod_rows_f32: prod(dim, keepdim, type) of float32: rows of 67 of x * 0.01 + 1 and of tanh(0.1 x) + 1, rows of 7 of raw y, static over 457 rows as float64
module Examples.RedProdRowsF32

open TorchSharp

[<Kgen.Entry("float32[457,67], float32[2000,7]")>]
let red_prod_rows_f32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        let p = x * 0.01f + 1.0f
        (p.prod(1L),
         y.prod(-1L, true),
         torch.prod(p, 0L, false, torch.float64),
         y.prod(1L, false, torch.float64),
         (x * 0.1f).tanh().add(1.0f.ToScalar()).prod(1L)) @>
