// fs_module_block: a TorchSharp module as users write it (class with submodule fields,
// RegisterComponents, a [<ReflectedDefinition>] override forward using `-->`, `.forward`
// and `|>`), quoted as `block.forward x`; the serializer expands the known modules
// (LayerNorm, GELU, Dropout in eval mode, Sequential of ReLU and Tanh) into functional calls
// with their live parameters captured (block_ln_weight, block_ln_bias)
module Examples.FsModuleBlock

open TorchSharp
open type TorchSharp.torch.nn

type Block(d: int64) as this =
    inherit Module<torch.Tensor, torch.Tensor>("block")
    let ln = LayerNorm([| d |])
    let act = GELU()
    let drop = Dropout(0.1)
    let tail = Sequential(("relu", ReLU() :> Module<torch.Tensor, torch.Tensor>), ("tanh", Tanh() :> Module<torch.Tensor, torch.Tensor>))
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: torch.Tensor) =
        let h = x --> ln --> act --> drop
        (x + h) |> tail.forward

let block =
    let b = new Block(32L)
    b.eval() |> ignore
    b

[<Kgen.Entry("float32[4,32]")>]
let fs_module_block = <@ fun (x: torch.Tensor) -> block.forward x @>
