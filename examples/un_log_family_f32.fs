// un_log_family_f32: log, log1p, log2, log10 of a positive tensor bound with let
module Examples.UnLogFamilyF32

open TorchSharp

[<Kgen.Entry("float32[40,40]")>]
let un_log_family_f32 =
    <@ fun (x: torch.Tensor) ->
        let p = x.abs() + 0.5f
        (p.log(), torch.log1p(p), p.log2(), torch.log10(p)) @>
