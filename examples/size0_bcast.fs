// size0_bcast: [0,5] + [5] -> [0,5]; second output of another shape [5]
module Examples.Size0Bcast

open TorchSharp

[<Kgen.Entry("float32[0,5], float32[5]")>]
let size0_bcast =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) -> (x + b, b * 2.0f) @>
