// odd_size_1023_chain: an odd size (1023): sqrt(|x - y|) * 2
module Examples.OddSize1023Chain

open TorchSharp

[<Kgen.Entry("float32[1023], float32[1023]")>]
let odd_size_1023_chain =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) -> (x - y).abs().sqrt() * 2.0 @>
