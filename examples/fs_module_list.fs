// fs_module_list: a stack of layers in a ModuleList, applied by `for layer in layers do
// h <- layer.forward h` as transformer code does; the serializer unrolls the loop over the
// live list (one body per layer), so the stack is one straight-line program: one kernel
module Examples.FsModuleList

open TorchSharp
open type TorchSharp.torch.nn

type Stack(d: int64) as this =
    inherit Module<torch.Tensor, torch.Tensor>("stack")
    let layers =
        ModuleList<Module<torch.Tensor, torch.Tensor>>(
            [| LayerNorm([| d |]) :> Module<torch.Tensor, torch.Tensor>; SiLU(); LayerNorm([| d |], eps = 1e-3); Tanh() |])
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: torch.Tensor) =
        let mutable h = x
        for layer in layers do
            h <- layer.forward h
        h

let stack = new Stack(48L)

[<Kgen.Entry("float32[6,48]")>]
let fs_module_list = <@ fun (x: torch.Tensor) -> stack.forward x @>
