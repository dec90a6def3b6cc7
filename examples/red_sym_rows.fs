// red_sym_rows: symbolic row count ["N", 1024]: (x * 2.0f + b).sum(-1L) and x.amax([|-1L|], true)
module Examples.RedSymRows

open TorchSharp

[<Kgen.Entry("float32[N,1024], float32[1024]")>]
let red_sym_rows =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) -> ((x * 2.0f + b).sum(-1L), x.amax([| -1L |], true)) @>
