// mm_mv_dot: torch.mv, Tensor.mv, torch.dot and Tensor.dot (the matrix-vector and inner products; K = 70 spans five chunks of 16)
module Examples.MmMvDot

open TorchSharp

[<Kgen.Entry("float32[9,70], float32[70], float32[70]")>]
let mm_mv_dot =
    <@ fun (m: torch.Tensor) (v: torch.Tensor) (u: torch.Tensor) ->
        torch.mv(m, v), m.mv(u), torch.dot(v, u), v.dot(u) + 1.0f @>
