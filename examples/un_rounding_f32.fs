// un_rounding_f32: floor, ceil, round (decimals=0L filled in), trunc, frac, fix
module Examples.UnRoundingF32

open TorchSharp

[<Kgen.Entry("float32[21,21]")>]
let un_rounding_f32 =
    <@ fun (x: torch.Tensor) ->
        (x.floor(), torch.ceil(x), x.round(), torch.trunc(x), x.frac(), torch.fix(x), x.fix()) @>
