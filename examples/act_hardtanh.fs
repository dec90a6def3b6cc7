// act_hardtanh: hardtanh: Tensor (Scalar bounds) and functional (defaults -1, 1 and custom)
module Examples.ActHardtanh

open TorchSharp

[<Kgen.Entry("float32[300]")>]
let act_hardtanh =
    <@ fun (x: torch.Tensor) ->
        (x.hardtanh(-2.0f, 2.0f),
         torch.nn.functional.hardtanh(x),
         torch.nn.functional.hardtanh(x, -0.5, 0.5)) @>
