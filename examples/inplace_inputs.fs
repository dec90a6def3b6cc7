// inplace_inputs: in-place ops on entry inputs and captured tensors change the caller's tensors, as in PyTorch (x.add_(y), a running-statistics update of a captured buffer with mul_/add_, copy_, zero_, fill_): reads before the op see the old value, later reads the new one, and kgen writes the final values back after the run
module Examples.InplaceInputs

open TorchSharp

[<Kgen.Entry("float32[4,6], float32[6]")>]
let inplace_add_input =
    <@ fun (x: torch.Tensor) (y: torch.Tensor) ->
        let before = x.sum()
        x.add_(y) |> ignore
        x.mul_(TorchSharp.Scalar.op_Implicit 2.0f).relu_() |> ignore
        (before, x * 3.0f) @>

[<Kgen.Entry("float32[8,5], running_mean=float32[5], running_var=float32[5]")>]
let inplace_running_stats (running_mean: torch.Tensor) (running_var: torch.Tensor) =
    <@ fun (x: torch.Tensor) ->
        let mean = x.mean([| 0L |])
        let var = x.var(0L)
        running_mean.mul_(TorchSharp.Scalar.op_Implicit 0.9f).add_(mean, TorchSharp.Scalar.op_Implicit 0.1f) |> ignore
        running_var.mul_(TorchSharp.Scalar.op_Implicit 0.9f).add_(var * 0.1f) |> ignore
        (x - running_mean) / (running_var + 1e-5f).sqrt() @>

[<Kgen.Entry("int32[3,4], float32[4], float32[3,4], int64[2]")>]
let inplace_copy_zero_fill =
    <@ fun (a: torch.Tensor) (src: torch.Tensor) (b: torch.Tensor) (c: torch.Tensor) ->
        a.copy_(src * 2.5f) |> ignore
        let s = b.sum()
        b.zero_() |> ignore
        c.fill_(TorchSharp.Scalar.op_Implicit 7L) |> ignore
        (s, a + 1) @>

[<Kgen.Entry("float32[5], int32")>]
let inplace_input_then_loop =
    <@ fun (x: torch.Tensor) (n: int) ->
        x.mul_(TorchSharp.Scalar.op_Implicit 0.5f) |> ignore
        let mutable acc = x
        for _ in 0 .. n - 1 do
            acc <- acc + x
        acc @>
