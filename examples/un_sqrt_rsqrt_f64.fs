// un_sqrt_rsqrt_f64: sqrt, rsqrt on float64
module Examples.UnSqrtRsqrtF64

open TorchSharp

[<Kgen.Entry("float64[333]")>]
let un_sqrt_rsqrt_f64 =
    <@ fun (x: torch.Tensor) ->
        let p = x.abs() + 0.001
        (torch.sqrt(p), p.rsqrt(), (x * x).sqrt()) @>
