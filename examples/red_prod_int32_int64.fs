// red_prod_int32_int64: integer prod over rows of 7 (|product| <= 9^7): int32 -> int64, int32 with dtype int32, int64 all-reduce
module Examples.RedProdInt32Int64

open TorchSharp

[<Kgen.Entry("int32[1024,7], int64[7]")>]
let red_prod_int32_int64 =
    <@ fun (n: torch.Tensor) (m: torch.Tensor) ->
        (n.prod(1L), n.prod(-1L, true, torch.int32), m.prod(), torch.prod(m, 0L, true)) @>
