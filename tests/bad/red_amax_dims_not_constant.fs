// red_amax_dims_not_constant: amax over [| d |] with d a parameter: dims arrays must hold constants
module Bad.RedAmaxDimsNotConstant

open TorchSharp

[<Kgen.Entry("float32[3,4], int64")>]
let red_amax_dims_not_constant =
    <@ fun (x: torch.Tensor) (d: int64) -> x.amax([| d |]) @>
