// mm_int_dtypes: integer products as PyTorch's CPU computes them: int32, int64, int16, uint8 and int8 (sums past 127 wrap around in int8)
module Examples.MmIntDtypes

open TorchSharp

[<Kgen.Entry("int32[4,5], int32[5,3], int64[3,7], int64[7,2], int16[2,9], int16[9,3], uint8[3,6], uint8[6,2], int8[5,40], int8[40,3]")>]
let mm_int_dtypes =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) (d: torch.Tensor) (e: torch.Tensor) (f: torch.Tensor)
           (g: torch.Tensor) (h: torch.Tensor) (i: torch.Tensor) (j: torch.Tensor) ->
        a.matmul(b), torch.mm(c, d), e.matmul(f), g.mm(h), i.matmul(j) @>
