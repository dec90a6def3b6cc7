// row_sum: x.sum(-1L) of a float32 ["R", "D"]: one sum per row (the reduced dim is contiguous) (perf/bench_reduce)
module Perf.RowSum

open TorchSharp

let row_sum =
    <@ fun (x: torch.Tensor) -> x.sum(-1L) @>
