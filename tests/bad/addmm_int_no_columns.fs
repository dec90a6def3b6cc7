// addmm_int_no_columns: torch.addmm of uint8 matrices whose mat1 has no columns: PyTorch and TorchSharp scale the input in place by the float beta and raise (result type Float can't be cast to Byte); found by kgen fuzz, seed 10199
module Bad.AddmmIntNoColumns
open TorchSharp

[<Kgen.Entry("uint8[1,1], uint8[3,0], uint8[0,1]")>]
let addmm_int_no_columns =
    <@ fun (c: torch.Tensor) (a: torch.Tensor) (b: torch.Tensor) -> torch.addmm(c, a, b, 1.0f, 1.0f) @>
