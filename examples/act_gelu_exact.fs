// act_gelu_exact: exact (erf) GELU: functional.gelu(Tensor) and Tensor.gelu()
module Examples.ActGeluExact

open TorchSharp

[<Kgen.Entry("float32[1024]")>]
let act_gelu_exact =
    <@ fun (x: torch.Tensor) -> (torch.nn.functional.gelu(x), x.gelu()) @>
