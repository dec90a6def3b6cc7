// multi_out_3tuple_shapes: a 3-tuple of outputs with different shapes and dtypes
module Examples.MultiOut3tupleShapes

open TorchSharp

[<Kgen.Entry("float32[4,8], float32[8]")>]
let multi_out_3tuple_shapes =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) -> (x + b, b.exp(), x.gt(0.0.ToScalar())) @>
