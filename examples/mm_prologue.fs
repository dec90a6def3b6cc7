// mm_prologue: pointwise ops and casts on the operands computed inline in the tile loads: relu(x * 2 + 1) @ w.float() with w int32, and a float16 cast of both
module Examples.MmPrologue

open TorchSharp

[<Kgen.Entry("float32[N,24], int32[24,10]")>]
let mm_prologue =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        (x * 2.0f + 1.0f).relu().matmul(w.float()), x.half().matmul(w.half()) @>
