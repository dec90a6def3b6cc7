// view_symbolic_products: views to a product of symbolic sizes (x.view(-1, 4) of float32[N,3,4] is [N*3, 4]; x.view(b * t, c) with sizes read from x.shape; flatten of [N, M]): a derived size bound from N (and M) at each run, the view index arithmetic in the kernel that reads it
module Examples.ViewSymbolicProducts

open TorchSharp

[<Kgen.Entry("float32[N,3,4]")>]
let view_infer_product = <@ fun (x: torch.Tensor) -> x.view(-1L, 4L) * 2.0f @>

[<Kgen.Entry("float32[B,T,8], float32[5,8]")>]
let view_rows_linear =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) ->
        let b, t, c = x.shape.[0], x.shape.[1], x.shape.[2]
        let y = torch.nn.functional.linear(x.view(b * t, c), w)
        y.view(b, t, 5L).relu() @>

[<Kgen.Entry("float32[N,M], float32[N,M]")>]
let flatten_product = <@ fun (x: torch.Tensor) (y: torch.Tensor) -> (x * y).flatten() + x.reshape(-1L) @>

[<Kgen.Entry("float32[N,3,4]")>]
let view_product_loop =
    <@ fun (x: torch.Tensor) ->
        let mutable y = x.view(-1L, 4L)
        for i in 0 .. 5 do
            y <- (y * 0.5f + float32 i).relu()
        y.view(x.shape.[0], 3L, 4L) - x @>
