// where_cond_not_bool: where() needs a bool condition (TorchSharp / LibTorch 2.x reject float32 and uint8; PyTorch 1.13 only warned for uint8)
module Bad.WhereCondNotBool

open TorchSharp

[<Kgen.Entry("float32[8], float32[8], float32[8]")>]
let where_cond_not_bool =
    <@ fun (c: torch.Tensor) (x: torch.Tensor) (y: torch.Tensor) -> torch.where(c, x, y) @>
