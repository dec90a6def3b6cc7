// norm_var_std_all: all-reduce var / std (Boolean unbiased, default true): Tensor and torch static forms, unbiased true / false, on [457, 67] and [3, 4097] (PyTorch semantics: TorchSharp 0.107's native THSTensor_var(tensor) drops the unbiased argument of var(Boolean))
module Examples.NormVarStdAll

open TorchSharp

[<Kgen.Entry("float32[457,67], float32[3,4097]")>]
let norm_var_std_all =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        (x.var(),
         x.var(false),
         torch.var(x, true),
         torch.var(x),
         torch.var(y, false),
         y.var(true),
         x.std(),
         torch.std(x, false),
         torch.std(y),
         y.std(false)) @>
