// outer_sum: x.sum(0L) of a float32 ["R", "D"]: one sum per column (the reduced dim is the outer, strided one) (perf/bench_reduce)
module Perf.OuterSum

open TorchSharp

let outer_sum =
    <@ fun (x: torch.Tensor) -> x.sum(0L) @>
