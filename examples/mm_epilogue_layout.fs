// mm_epilogue_layout: a layout op over a product (flip, transpose) reads it at other coordinates, so it is not fused into the product's store: the product is stored once and read back (y.flip(0) + y, y.t() * 2)
module Examples.MmEpilogueLayout

open TorchSharp

[<Kgen.Entry("float32[6,5], float32[5,6]")>]
let mm_epilogue_layout =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) ->
        let y = a.matmul(b)
        y.flip(0L) + y, y.t() * 2.0f @>
