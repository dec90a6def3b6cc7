// un_invtrig_f32: asin/arcsin, acos/arccos, atan/arctan (inputs squashed into (-1, 1) by tanh)
module Examples.UnInvtrigF32

open TorchSharp

[<Kgen.Entry("float32[257]")>]
let un_invtrig_f32 =
    <@ fun (x: torch.Tensor) ->
        let t = x.tanh()
        (torch.asin(t),
         t.acos(),
         torch.atan(x),
         torch.arcsin(t),
         t.arccos(),
         x.arctan(),
         torch.arctan(x)) @>
