// red_max_min_all_ints_bool: all-reduce max() / min() keep the dtype: int8, uint8, int16, int32, int64, bool
module Examples.RedMaxMinAllIntsBool

open TorchSharp

[<Kgen.Entry("int8[457,67], uint8[1024], int16[7,7], int32[67,457], int64[2000,7], bool[1,67]")>]
let red_max_min_all_ints_bool =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) (n: torch.Tensor) (m: torch.Tensor) (q: torch.Tensor) ->
        (a.max(),
         a.min(),
         b.max(),
         torch.min(b),
         c.max(),
         c.min(),
         torch.max(n),
         n.min(),
         m.max(),
         m.min(),
         q.max(),
         q.min()) @>
