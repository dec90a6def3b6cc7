// rmsnorm: RMSNorm written from primitives, x * (x * x).mean([| -1L |], true).add(1e-6).rsqrt() * w,
// float32 ["R", "D"] rows and a ["D"] weight (perf/bench_reduce)
module Perf.Rmsnorm

open TorchSharp

let rmsnorm =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) -> x * (x * x).mean([| -1L |], true).add(1e-6).rsqrt() * w @>
