// red_fuse_bcast_input: reductions of broadcast expressions: (x + b).sum(0L) with b [67]; ((x + c) * b).amax over rows with c [457, 1]
module Examples.RedFuseBcastInput

open TorchSharp

[<Kgen.Entry("float32[457,67], float32[67], float32[457,1]")>]
let red_fuse_bcast_input =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) ->
        ((x + b).sum(0L), ((x + c) * b).amax([| 1L |])) @>
