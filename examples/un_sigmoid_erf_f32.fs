// un_sigmoid_erf_f32: sigmoid, erf, erfc (torch, Tensor, torch.special incl. expit)
module Examples.UnSigmoidErfF32

open TorchSharp

[<Kgen.Entry("float32[1000]")>]
let un_sigmoid_erf_f32 =
    <@ fun (x: torch.Tensor) ->
        (torch.sigmoid(x),
         x.erf(),
         torch.erfc(x),
         torch.special.expit(x),
         x.sigmoid(),
         torch.special.erf(x),
         torch.special.erfc(x)) @>
