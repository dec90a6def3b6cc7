// un_sign_abs_i8: sign, sgn, abs, absolute on int8
module Examples.UnSignAbsI8

open TorchSharp

[<Kgen.Entry("int8[99]")>]
let un_sign_abs_i8 =
    <@ fun (x: torch.Tensor) ->
        (x.sign(), torch.abs(x), x.absolute(), torch.sgn(x), torch.absolute(x)) @>
