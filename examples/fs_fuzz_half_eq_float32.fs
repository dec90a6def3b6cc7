// fs_fuzz_half_eq_float32: a 0-dim float32 sum compared with a float16 tensor compares in float16 (the dimensioned operand's dtype wins its category), so the sum is rounded to half first; the float16 reference mode must round it too (kgen fuzz, seed 1803)
module Examples.FsFuzzHalfEqFloat32

open TorchSharp

[<Kgen.Entry("float32[1]")>]
let fs_fuzz_half_eq_float32 =
    <@ fun (y: torch.Tensor) -> y.sum(0L).eq(y.half()) @>
