// dtype_complex64: a cast to an unsupported dtype: x.to_type(torch.complex64)
module Bad.DtypeComplex64

open TorchSharp

[<Kgen.Entry("float32[16]")>]
let dtype_complex64 =
    <@ fun (x: torch.Tensor) -> x.to_type(torch.complex64) @>
