// where_cond_uint8: where() with a uint8 condition: rejected by TorchSharp (Tensor.where throws unless Bool)
module Bad.WhereCondUint8

open TorchSharp

[<Kgen.Entry("uint8[8], float32[8], float32[8]")>]
let where_cond_uint8 =
    <@ fun (c: torch.Tensor) (x: torch.Tensor) (y: torch.Tensor) -> x.where(c, y) @>
