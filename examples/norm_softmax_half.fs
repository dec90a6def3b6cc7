// norm_softmax_half: softmax without a dtype keeps float16 / bfloat16 (rows and columns); float32 with dtype float16 is converted to half first
module Examples.NormSoftmaxHalf

open TorchSharp

[<Kgen.Entry("float16[67,1024], bfloat16[1024,67], float32[7,457]")>]
let norm_softmax_half =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) (x: torch.Tensor) ->
        (h.softmax(-1L),
         torch.softmax(h, 0),
         torch.special.softmax(g, -1L),
         torch.nn.functional.softmax(g, 0L),
         x.softmax(-1L, torch.float16)) @>
