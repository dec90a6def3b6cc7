// fs_module_comprehension: branches collected by F# array comprehensions, as TextCNN does: `[| for conv in convs -> ... |]` over a live ModuleList (the serializer writes one copy of the body per module), then `[| for b in branches -> ... |]`, Array.map and Seq.map over the resulting tensor array (kgen maps them when it compiles), joined by torch.cat
module Examples.FsModuleComprehension

open TorchSharp
open type TorchSharp.torch.nn

type Branches(d: int64) as this =
    inherit Module<torch.Tensor, torch.Tensor>("branches")
    let convs =
        ModuleList<Module<torch.Tensor, torch.Tensor>>(
            [| for k in [ 1L; 3L; 5L ] -> Conv1d(d, 4L, k, padding = k / 2L) :> Module<torch.Tensor, torch.Tensor> |])
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: torch.Tensor) =
        let branches = [| for conv in convs -> functional.relu(conv.forward(x)) |]
        let pooled = [| for b in branches -> b.amax([| 2L |]) |]
        let scaled = pooled |> Array.map (fun p -> p * 2.0f)
        torch.cat(Seq.map (fun (p: torch.Tensor) -> p.tanh()) scaled |> Seq.toArray, 1L)

torch.manual_seed(20261125L) |> ignore
let branches = new Branches(6L)

[<Kgen.Entry("float32[2,6,9]")>]
let fs_module_comprehension = <@ fun (x: torch.Tensor) -> branches.forward x @>
