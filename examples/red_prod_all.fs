// red_prod_all: all-reduce prod (torch static and instance, with and without dtype) of 30k float32 near 1; 4097 float64
module Examples.RedProdAll

open TorchSharp

[<Kgen.Entry("float32[67,457], float64[4097]")>]
let red_prod_all =
    <@ fun (x: torch.Tensor) (z: torch.Tensor) ->
        let p = x * 0.01f + 1.0f
        (p.prod(),
         torch.prod(p),
         p.prod(torch.float64),
         torch.prod(p, torch.ScalarType.Float64),
         (z * 0.01 + 1.0).prod()) @>
