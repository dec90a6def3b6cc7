// map_while_collatz: while with a data-dependent trip count (Collatz steps of |v| * 7 + 1, capped) on int32
module Examples.MapWhileCollatz

open TorchSharp
open Kgen

[<Kgen.Entry("int32[16,32]")>]
let map_while_collatz =
    <@ fun (x: torch.Tensor) ->
        Ops.map (fun (v: int) ->
            let mutable n = abs v * 7 + 1
            let mutable steps = 0
            while n <> 1 && steps < 1000 do
                if n % 2 = 0 then n <- n / 2 else n <- 3 * n + 1
                steps <- steps + 1
            steps) x @>
