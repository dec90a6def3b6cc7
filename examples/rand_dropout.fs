// rand_dropout: dropout in training mode (functional, p = 0 / 0.3 / 1, fused with the ops around it; a Dropout module in training mode; attention probabilities dropped before the product with v) drawn from kgen's Philox generator
module Examples.RandDropout

open TorchSharp
open type TorchSharp.torch.nn

[<Kgen.Entry("float32[6,33], float32[33]")>]
let rand_dropout_functional =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) ->
        let h = torch.nn.functional.dropout((x + b).relu(), 0.3, true)
        h * 2.0f, torch.nn.functional.dropout(x, 1.0, true), torch.nn.functional.dropout(x, 0.0, true),
        torch.nn.functional.dropout(x, 0.3, false) @>

type Mlp(d: int64) as this =
    inherit Module<torch.Tensor, torch.Tensor>("mlp")
    let fc = Linear(d, d)
    let drop = Dropout(0.25)
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: torch.Tensor) = x --> fc --> drop

let mlp =
    let m = new Mlp(16L)
    m.train() |> ignore
    m

[<Kgen.Entry("float32[5,16]")>]
let rand_dropout_module = <@ fun (x: torch.Tensor) -> mlp.forward x @>

[<Kgen.Entry("float32[2,7,8], float32[2,7,8], float32[2,7,8]")>]
let rand_dropout_attention =
    <@ fun (q: torch.Tensor) (k: torch.Tensor) (v: torch.Tensor) ->
        let p = (q.matmul(k.transpose(-2L, -1L)) * 0.35f).softmax(-1L)
        torch.nn.functional.dropout(p, 0.1, true).matmul(v) @>

[<Kgen.Entry("float16[9,5], bfloat16[9,5], float64[9,5]")>]
let rand_dropout_dtypes =
    <@ fun (h: torch.Tensor) (b: torch.Tensor) (d: torch.Tensor) ->
        torch.nn.functional.dropout(h, 0.5, true), torch.nn.functional.dropout(b, 0.5, true),
        torch.nn.functional.dropout(d, 0.5, true) @>
