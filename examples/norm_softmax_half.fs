// norm_softmax_half: softmax without a dtype keeps float16 / bfloat16 (rows and columns); float32 with dtype float16 is converted to half first
module Examples.NormSoftmaxHalf

open TorchSharp

let norm_softmax_half =
    <@ fun (h: torch.Tensor) (g: torch.Tensor) (x: torch.Tensor) ->
        (h.softmax(-1L),
         torch.softmax(h, 0),
         torch.special.softmax(g, -1L),
         torch.nn.functional.softmax(g, 0L),
         x.softmax(-1L, torch.float16)) @>
