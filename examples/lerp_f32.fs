// lerp_f32: lerp with a tensor weight (static and instance; weights outside [0,1] extrapolate)
module Examples.LerpF32

open TorchSharp

[<Kgen.Entry("float32[256], float32[256], float32[256]")>]
let lerp_f32 =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) (w: torch.Tensor) ->
        (torch.lerp(a, b, w * 0.1f), a.lerp(b, w.sigmoid())) @>
