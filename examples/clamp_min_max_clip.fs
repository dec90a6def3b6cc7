// clamp_min_max_clip: clamp_min / clamp_max / clip (Scalar-only parameters: implicit Scalar conversion)
module Examples.ClampMinMaxClip

open TorchSharp

[<Kgen.Entry("float32[120]")>]
let clamp_min_max_clip =
    <@ fun (x: torch.Tensor) ->
        (x.clamp_min(-2.0f),
         x.clamp_max(3.0),
         torch.clamp_min(x, 0),
         torch.clip(x, -1, 1),
         x.clip(-0.5f, 0.5f)) @>
