// remainder_fmod_i32: remainder (floored) vs fmod (truncated) on int32, static and instance
module Examples.RemainderFmodI32

open TorchSharp

[<Kgen.Entry("int32[200], int32[200]", NonZero = [| 1 |])>]
let remainder_fmod_i32 =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (torch.remainder(x, y), torch.fmod(x, y), x.remainder(y), x.fmod(y)) @>
