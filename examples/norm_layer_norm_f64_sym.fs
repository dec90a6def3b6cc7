// norm_layer_norm_f64_sym: float64 layer_norm of ["N", 1024] with weight / bias and eps 1e-12; a float32 ["N", 7, 67] over its last dim
module Examples.NormLayerNormF64Sym

open TorchSharp

[<Kgen.Entry("float64[N,1024], float64[1024], float64[1024], float32[N,7,67]")>]
let norm_layer_norm_f64_sym =
    <@ fun (d: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) (x: torch.Tensor) ->
        (torch.nn.functional.layer_norm(d, [| 1024L |], w, b, 1e-12),
         torch.nn.functional.layer_norm(x, [| 67L |])) @>
