// norm_var_std_dim: var / std over one Int64 dim (unbiased, keepdim, type = null): rows of 67 and columns of 1024 of [1024, 67], unbiased / keepdim true and false, named arguments, torch static forms
module Examples.NormVarStdDim

open TorchSharp

[<Kgen.Entry("float32[1024,67]")>]
let norm_var_std_dim =
    <@ fun (x: torch.Tensor) ->
        (x.var(-1L),
         x.var(1L, false),
         x.var(-1L, true, true),
         x.var(0L, unbiased = false, keepdim = true),
         torch.var(x, 0L),
         torch.var(x, -1L, false, true),
         x.std(-1L),
         x.std(1L, false),
         x.std(0L, false, true),
         torch.std(x, 0L),
         torch.std(x, 1L, true, true)) @>
