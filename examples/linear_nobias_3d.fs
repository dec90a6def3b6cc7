// linear_nobias_3d: torch.nn.functional.linear without a bias over a symbolic batch [B,5,8] by w [6,8] (w read transposed, no copy), and a 1-D weight
module Examples.LinearNobias3d

open TorchSharp

[<Kgen.Entry("float32[B,5,8], float32[6,8], float32[8]")>]
let linear_nobias_3d =
    <@ fun (x: torch.Tensor) (w: torch.Tensor) (v: torch.Tensor) ->
        torch.nn.functional.linear(x, w), torch.nn.functional.linear(x, v) @>
