// norm_size_one_rows: normalizing size-1 dims and single rows: softmax of [2000, 1] rows (ones), log_softmax (zeros), [1, 4097] over dim 0 (ones) and dim 1; layer_norm over [|1L|] (bias) and of one 4097 row
module Examples.NormSizeOneRows

open TorchSharp

[<Kgen.Entry("float32[2000,1], float32[1,4097], float32[1], float32[1]")>]
let norm_size_one_rows =
    <@ fun (a: torch.Tensor) (r: torch.Tensor) (w: torch.Tensor) (b: torch.Tensor) ->
        (a.softmax(-1L),
         torch.special.log_softmax(a, 1L),
         torch.softmax(r, 0),
         torch.nn.functional.softmax(r, 1L),
         torch.nn.functional.layer_norm(a, [| 1L |], w, b),
         torch.nn.functional.layer_norm(r, [| 4097L |])) @>
