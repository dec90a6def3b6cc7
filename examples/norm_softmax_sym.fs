// norm_softmax_sym: symbolic row count ["N", 1024]: softmax and nn.functional.log_softmax over the last dim; ["B", 457, 7] over the middle dim
module Examples.NormSoftmaxSym

open TorchSharp

[<Kgen.Entry("float32[N,1024], float32[B,457,7]")>]
let norm_softmax_sym =
    <@ fun (x: torch.Tensor) (z: torch.Tensor) ->
        (x.softmax(-1L), torch.nn.functional.log_softmax(x, -1L), torch.softmax(z, 1)) @>
