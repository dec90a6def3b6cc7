// cf_for_scalar_bound: for i in 1 .. n with n a scalar parameter (0, 1 or many trips at run time); the loop variable takes part in the tensor math
module Examples.CfForScalarBound

open TorchSharp

[<Kgen.Entry("float32[4,33], int32")>]
let cf_for_scalar_bound =
    <@ fun (x: torch.Tensor) (n: int) ->
        let mutable y = x
        for i in 1 .. n do
            y <- y * 0.5f + float32 i
        y @>
