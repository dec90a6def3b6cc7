// bcast_lerp_3way: lerp(a [8,1], b [1,8], w [1]) -> [8,8]
module Examples.BcastLerp3way

open TorchSharp

[<Kgen.Entry("float32[8,1], float32[1,8], float32[1]")>]
let bcast_lerp_3way =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (w: torch.Tensor) -> torch.lerp(a, b, w.sigmoid()) @>
