// red_max_min_all_floats: all-reduce max() / min() (torch static and instance) of float32 [67, 4097], float64 [2000, 7], float16 [457, 67], bfloat16 [1024]
module Examples.RedMaxMinAllFloats

open TorchSharp

[<Kgen.Entry("float32[67,4097], float64[2000,7], float16[457,67], bfloat16[1024]")>]
let red_max_min_all_floats =
    <@ fun (x: torch.Tensor) (d: torch.Tensor) (h: torch.Tensor) (g: torch.Tensor) ->
        (torch.max(x),
         x.max(),
         torch.min(x),
         x.min(),
         d.max(),
         torch.min(d),
         h.max(),
         h.min(),
         torch.max(g),
         g.min()) @>
