// fs_use_bindings: `use` bindings as real F# code writes them around TorchSharp temporaries
// (Let + TryFinally whose finally only disposes): kgen treats them as plain lets
module Examples.FsUseBindings

open TorchSharp

[<Kgen.Entry("float32[4,33], float32[33]")>]
let fs_use_bindings =
    <@ fun (x: torch.Tensor) (b: torch.Tensor) ->
        use h = (x + b).exp()
        use s = h.sum(-1L, true)
        h / s @>
