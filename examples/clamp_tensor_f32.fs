// clamp_tensor_f32: clamp with Tensor bounds that broadcast ([8,64] between [1,64] and [8,1])
module Examples.ClampTensorF32

open TorchSharp

[<Kgen.Entry("float32[8,64], float32[1,64], float32[8,1]")>]
let clamp_tensor_f32 =
    <@ fun (x: torch.Tensor) (lo: torch.Tensor) (hi: torch.Tensor) ->
        (x.clamp(lo, hi), torch.clamp(x, lo, hi)) @>
