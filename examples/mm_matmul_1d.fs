// mm_matmul_1d: matmul with 1-D operands: matrix @ vector [6,4]@[4] = [6], vector @ matrix [6]@[6,4] = [4], vector @ vector = a 0-dim tensor, batched [3,6,4] @ [4] = [3,6]
module Examples.MmMatmul1d

open TorchSharp

[<Kgen.Entry("float32[6,4], float32[4], float32[6], float32[3,6,4]")>]
let mm_matmul_1d =
    <@ fun (m: torch.Tensor) (v: torch.Tensor) (u: torch.Tensor) (t: torch.Tensor) ->
        m.matmul(v), u.matmul(m), torch.matmul(v, v), t.matmul(v) @>
