// mm_mm_f64: torch.mm and Tensor.mm on float64 [5,7] by [7,3] (accumulated in float64)
module Examples.MmMmF64

open TorchSharp

[<Kgen.Entry("float64[5,7], float64[7,3]")>]
let mm_mm_f64 =
    <@ fun (a: torch.Tensor) (b: torch.Tensor) -> torch.mm(a, b), a.mm(b) * 2.0 @>
