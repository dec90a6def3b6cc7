// size0_relu: a size-0 dimension ([0, 5]): empty output, no kernel work
module Examples.Size0Relu

open TorchSharp

[<Kgen.Entry("float32[0,5]")>]
let size0_relu =
    <@ fun (x: torch.Tensor) -> x.relu() @>
