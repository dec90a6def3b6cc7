// un_exp_family_f32: exp, exp2, expm1 (torch, Tensor and torch.special forms)
module Examples.UnExpFamilyF32

open TorchSharp

[<Kgen.Entry("float32[500]")>]
let un_exp_family_f32 =
    <@ fun (x: torch.Tensor) ->
        (x.exp(), torch.exp2(x), x.expm1(), torch.special.exp2(x), torch.special.expm1(x)) @>
