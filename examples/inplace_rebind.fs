// inplace_rebind: TorchSharp's in-place ops on intermediates as model code writes them (NasBert's q.mul_(scaling), x.view(...).transpose_(0, 1), relu_, masked_fill_): each the out-of-place op rebinding the variable, its dtype and shape kept, fused like any pointwise op
module Examples.InplaceRebind

open TorchSharp

[<Kgen.Entry("float32[4,6], float32[6], int32[4,6]")>]
let inplace_rebind =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) (i: torch.Tensor) ->
        let q = x * 2.0f
        q.mul_(TorchSharp.Scalar.op_Implicit 0.5f) |> ignore
        q.add_(b) |> ignore
        q.relu_() |> ignore
        q.masked_fill_(x.gt(TorchSharp.Scalar.op_Implicit 4.0f), TorchSharp.Scalar.op_Implicit -1.0f) |> ignore
        let t = q.view(2L, 12L).transpose_(0L, 1L)
        let n = i + 1
        n.mul_(TorchSharp.Scalar.op_Implicit 3) |> ignore
        (q, t, n) @>
