// red_amax_out_tensor: amax(dims, keepdim, out) with an out= tensor: the out argument must be Value null (kgen writes no caller tensors)
module Bad.RedAmaxOutTensor

open TorchSharp

[<Kgen.Entry("float32[3,4], float32[3]")>]
let red_amax_out_tensor =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x.amax([| 1L |], false, y) @>
