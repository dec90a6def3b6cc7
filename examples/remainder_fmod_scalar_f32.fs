// remainder_fmod_scalar_f32: remainder / fmod with Scalar divisors of both signs
module Examples.RemainderFmodScalarF32

open TorchSharp

[<Kgen.Entry("float32[16,16]")>]
let remainder_fmod_scalar_f32 =
    <@ fun (x: torch.Tensor) ->
        (x.remainder(2.5f.ToScalar()),
         x.fmod((-2.5f).ToScalar()),
         torch.remainder(x, (3).ToScalar()),
         torch.fmod(x, (3).ToScalar())) @>
