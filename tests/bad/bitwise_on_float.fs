// bitwise_on_float: &&& on float32 tensors (bitwise ops need integer or bool dtypes)
module Bad.BitwiseOnFloat

open TorchSharp

[<Kgen.Entry("float32[16], float32[16]")>]
let bitwise_on_float =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> x &&& y @>
