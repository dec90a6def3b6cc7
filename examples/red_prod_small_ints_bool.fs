// red_prod_small_ints_bool: int8 / uint8 / int16 / bool prod (int64 results; bool prod is `all`), int16 rows as float64
module Examples.RedProdSmallIntsBool

open TorchSharp

[<Kgen.Entry("int8[457,7], uint8[1,7], int16[67,7], bool[2000,7]")>]
let red_prod_small_ints_bool =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) (q: torch.Tensor) ->
        (a.prod(1L), b.prod(-1L, true), torch.prod(b), c.prod(1L, false, torch.float64), q.prod(1L)) @>
