// bcast_symbolic: symbolic sizes: x [B,N] * y [N] - y (one kernel for every B, N)
module Examples.BcastSymbolic

open TorchSharp

[<Kgen.Entry("float32[B,N], float32[N]")>]
let bcast_symbolic =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x * y - y @>
