// un_logit: logit without eps (DefaultValue / Value null Nullable<double>) and with eps (Nullable ctor)
module Examples.UnLogit

open TorchSharp

[<Kgen.Entry("float32[300]")>]
let un_logit =
    <@ fun (x: torch.Tensor) ->
        let p = x.sigmoid()
        (p.logit(), torch.logit(p, 0.001), torch.special.logit(p), x.logit(0.25)) @>
