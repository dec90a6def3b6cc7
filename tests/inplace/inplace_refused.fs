// inplace_refused: in-place ops kgen refuses with a located error, each where it cannot give PyTorch's meaning
module Tests.InplaceRefused

open TorchSharp

[<Kgen.Entry("float32[4], int32")>]
let inplace_input_in_loop =
    <@ fun (x: torch.Tensor) (n: int) ->
        for _ in 0 .. n - 1 do
            x.add_(TorchSharp.Scalar.op_Implicit 1.0f) |> ignore
        x * 2.0f @>

[<Kgen.Entry("float32[4,3]")>]
let inplace_input_transpose =
    <@ fun (x: torch.Tensor) ->
        x.transpose_(0L, 1L) |> ignore
        x + 1.0f @>

[<Kgen.Entry("float32[4,3]")>]
let inplace_input_with_view =
    <@ fun (x: torch.Tensor) ->
        let v = x.T
        x.add_(TorchSharp.Scalar.op_Implicit 1.0f) |> ignore
        v * 2.0f @>

[<Kgen.Entry("float32[4,3]")>]
let inplace_on_view_of_input =
    <@ fun (x: torch.Tensor) ->
        x.narrow(0L, 1L, 2L).mul_(TorchSharp.Scalar.op_Implicit 2.0f) |> ignore
        x + 1.0f @>
