// norm_softmax_half_dtype_f32: float16 / bfloat16 inputs with dtype float32: the input is converted first, the result is float32 (all four softmax members)
module Examples.NormSoftmaxHalfDtypeF32

open TorchSharp

[<Kgen.Entry("float16[67,1024], bfloat16[457,67]")>]
let norm_softmax_half_dtype_f32 =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) ->
        (h.softmax(-1L, torch.float32),
         torch.softmax(h, 0, torch.float32),
         torch.special.softmax(g, -1L, torch.ScalarType.Float32),
         torch.nn.functional.softmax(g, 0L, torch.float32)) @>
