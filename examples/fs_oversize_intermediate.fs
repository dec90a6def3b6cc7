// fs_oversize_intermediate: an intermediate far larger than its inputs (x @ x.t() of an empty [N, 0] is [N, N] zeros, summed): `kgen check --size N=3000000000` must fail with a located size error (exit 1), not abort (issue 13)
module Examples.FsOversizeIntermediate
open TorchSharp

[<Kgen.Entry("float32[N,0]")>]
let fs_oversize_intermediate =
    <@ fun (x: torch.Tensor) -> x.matmul(x.t()).sum() + 1.0f @>
