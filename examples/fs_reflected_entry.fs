// fs_reflected_entry: a plain [<ReflectedDefinition>] function is an entry when it is named — `tools/kgen-fsharp check fs_reflected_entry.fs --entry gate --sig "float32[5,7], float32[5,7]"`, `Kgen.compileFn gate`, `Kgen.compile <@ gate @>` (the entry here)
module Examples.FsReflectedEntry

open TorchSharp

[<ReflectedDefinition>]
let gate (x: torch.Tensor) (g: torch.Tensor) =
    let mutable y = x * g.sigmoid ()
    for t in 1L .. x.shape.[0] - 1L do
        y <- y + 0.5f * x.[t - 1L].unsqueeze (0L)
    y

// (a module-level quotation of a function over tensors needs its type: F# would generalize it)
[<Kgen.Entry("float32[5,7], float32[5,7]")>]
let fs_reflected_entry: Quotations.Expr<torch.Tensor -> torch.Tensor -> torch.Tensor> = <@ gate @>
