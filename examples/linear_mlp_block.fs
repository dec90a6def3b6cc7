// linear_mlp_block: a transformer MLP block as users write it (Linear -> GELU -> Linear modules, quoted as block.forward x): two kernels, the hidden gelu(x W1 + b1) stored once by the first
module Examples.LinearMlpBlock

open TorchSharp
open type TorchSharp.torch.nn

type Mlp(d: int64, h: int64) as this =
    inherit Module<torch.Tensor, torch.Tensor>("mlp")
    let fc1 = Linear(d, h)
    let act = GELU()
    let fc2 = Linear(h, d)
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: torch.Tensor) = x --> fc1 --> act --> fc2

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let mlp =
    let m = new Mlp(16L, 64L)
    m.eval() |> ignore
    m

[<Kgen.Entry("float32[2,5,16]")>]
let linear_mlp_block = <@ fun (x: torch.Tensor) -> mlp.forward x @>
