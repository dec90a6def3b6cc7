// baddbmm_int_no_columns: torch.baddbmm of int32 batches whose batch1 has no columns (TorchSharp 0.107 passes x, b1 as batch1, batch2 and b2 as the input): PyTorch scales the input in place by the float beta and raises, as for addmm (tests/bad/addmm_int_no_columns)
module Bad.BaddbmmIntNoColumns
open TorchSharp

[<Kgen.Entry("int32[2,3,0], int32[2,0,4], int32[2,3,4]")>]
let baddbmm_int_no_columns =
    <@ fun (x: torch.Tensor) (b1: torch.Tensor) (b2: torch.Tensor) -> torch.baddbmm(x, b1, b2, 1.0f, 1.0f) @>
