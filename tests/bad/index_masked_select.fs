// index_masked_select: masked_select's result has as many elements as the mask has true values, a data-dependent shape no kernel can be compiled for
module Bad.IndexMaskedSelect

open TorchSharp

[<Kgen.Entry("float32[4,5], bool[4,5]")>]
let index_masked_select =
    <@ fun (x: torch.Tensor) (m: torch.Tensor) -> x.masked_select(m) * 2.0f @>
