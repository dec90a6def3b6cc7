// pool_tuples: the pooling functions' (h, w) tuple overloads as TorchVision's C# calls them (`adaptive_avg_pool2d(x, (1, 1))`; F# writes `struct (1L, 1L)`), stride and padding as optional tuples (Nullable<ValueTuple>)
module Examples.PoolTuples

open System
open TorchSharp
open type TorchSharp.torch

type private T2 = Nullable<struct (int64 * int64)>

[<Kgen.Entry("float32[2,3,9,8]")>]
let pool_tuples =
    <@ fun (x: Tensor) ->
        let m = nn.functional.max_pool2d(x, struct (3L, 2L), T2(struct (2L, 1L)), T2(struct (1L, 0L)), T2(struct (1L, 2L)), true)
        let a = nn.functional.avg_pool2d(x, struct (2L, 3L), T2(struct (2L, 2L)), T2(struct (1L, 1L)), false, false)
        nn.functional.adaptive_avg_pool2d(m, struct (3L, 1L)) + nn.functional.adaptive_avg_pool2d(a, struct (3L, 1L)) @>
