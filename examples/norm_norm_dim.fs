// norm_norm_dim: norm over one Int32 dim (keepdim, p): torch.norm and x.norm on [1024, 67], rows and columns, p = 2 / 1 / 3 / infinity, keepdim true and false, a named p
module Examples.NormNormDim

open TorchSharp

[<Kgen.Entry("float32[1024,67]")>]
let norm_norm_dim =
    <@ fun (x: torch.Tensor) ->
        (torch.norm(x, -1),
         torch.norm(x, 0, true, 1.0f),
         torch.norm(x, 1, false, System.Single.PositiveInfinity),
         x.norm(1, false, 3.0f),
         x.norm(-1, true),
         x.norm(0, false, System.Single.PositiveInfinity),
         x.norm(0, p = 3.0f)) @>
