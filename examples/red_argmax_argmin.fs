// red_argmax_argmin: argmax / argmin over rows, columns (keepdim) and all elements: float32 with NaNs (x.sqrt(): the first NaN wins) and int32 with many ties (the first occurrence wins)
module Examples.RedArgmaxArgmin

open TorchSharp

[<Kgen.Entry("float32[67,457], int32[457,67]")>]
let red_argmax_argmin =
    <@ fun (x: torch.Tensor) (n: torch.Tensor) ->
        (x.argmax(-1L),
         torch.argmin(x, 0L, true),
         x.argmax(),
         x.sqrt().argmax(1L),
         x.sqrt().argmin(0L),
         n.argmax(1L),
         torch.argmin(n, 0L),
         n.argmin(),
         n.argmax(0L, true)) @>
