// bin_atan2_f32: atan2 / arctan2 / two-argument arctan, static and instance
module Examples.BinAtan2F32

open TorchSharp

[<Kgen.Entry("float32[100], float32[100]")>]
let bin_atan2_f32 =
    <@ fun (y: torch.Tensor) (x: torch.Tensor) ->
        (torch.atan2(y, x),
         y.arctan2(x),
         torch.arctan2(y, x),
         y.atan2(x),
         torch.arctan(y, x),
         y.arctan(x)) @>
