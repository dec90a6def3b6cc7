// softmax: x.softmax(-1L) over the rows of a float32 ["R", "D"] (perf/bench_reduce)
module Perf.Softmax

open TorchSharp

let softmax =
    <@ fun (x: torch.Tensor) -> x.softmax(-1L) @>
