// tutorial_mlp: the two-layer MLP of the TorchSharp F# tutorials ("Trivial": Linear -> relu ->
// Linear), as the tutorial writes it, and the same model as the tutorial's nn.Sequential.
//
// Source: https://github.com/dotnet/TorchSharpExamples
//   tutorials/FSharp/tutorial6.ipynb (cells 16 and 52; tutorial7.ipynb cell 4 is the same type)
//   commit 32e047a6d7bc3ea00bb02963128c317260f6d210
// Changes F# needs: [<ReflectedDefinition>] on forward (F# keeps no body for kgen without it).
// Sizes: the tutorial's own (1000 -> 100 -> 10), a batch of 32 as in tutorial7.
module Models.TutorialMlp

open TorchSharp
open type TorchSharp.torch
open type TorchSharp.torch.nn

type Trivial() as this =
    inherit nn.Module<Tensor, Tensor>("Trivial")

    let lin1 = nn.Linear(1000L, 100L)
    let lin2 = nn.Linear(100L, 10L)

    do
        this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(input) =

        use x = lin1.forward(input)
        use y = nn.functional.relu(x)
        lin2.forward(y)

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let model = new Trivial()   // the notebook: Trivial() (F# warns FS0760 for an IDisposable)

[<Kgen.Entry("float32[32,1000]")>]
let trivial = <@ fun (input: Tensor) -> model.forward(input) @>

// tutorial6 cell 52: the same model as a Sequential (it loads the weights Trivial saved)
let seq = nn.Sequential(("lin1", nn.Linear(1000L, 100L) :> nn.Module<Tensor,Tensor>), ("relu", nn.ReLU() :> nn.Module<Tensor,Tensor>), ("lin2", nn.Linear(100L, 10L) :> nn.Module<Tensor,Tensor>))

[<Kgen.Entry("float32[32,1000]")>]
let trivial_sequential = <@ fun (dataBatch: Tensor) -> seq.forward(dataBatch) @>
