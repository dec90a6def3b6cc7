// Kgen.Package (docs/package.md): a package written from a document (Package.Write, what
// `tools/kgen-fsharp package` calls) gives typed functions that match TorchSharp, picks the
// signature each size fits, names the signatures when none fits, and checks the function type
// against the entry's parameters.
module Kgen.Tests.KernelPackageTests

open System
open System.IO
open TorchSharp
open Xunit
open Kgen
open Kgen.Tests.Support

type private T = torch.Tensor

let private write (name: string) (example: string) (signatures: string list) =
    let path = Path.Combine(Path.GetTempPath(), sprintf "kgen-%s-%s.kgpkg" name (Guid.NewGuid().ToString("N").Substring(0, 8)))
    let json = File.ReadAllText(Path.Combine(repoRoot, "examples", example + ".json"))
    let items =
        match signatures with
        | [] -> [ { Json = json; Entry = None; Signature = None } ]
        | ss -> ss |> List.map (fun s -> { Json = json; Entry = None; Signature = Some s })
    Package.Write(path, items, [])
    path

[<Fact>]
let ``a package's entry is a typed function that matches TorchSharp, for every size its signatures take`` () =
    let path = write "bias-gelu" "bcast_bias_gelu" [ "float32[N,768], float32[768]"; "float64[N,768], float64[768]" ]
    try
        use pkg = Package.Load path
        Assert.Equal<string list>([ "bcast_bias_gelu" ], pkg.Entries)
        let f : T -> T -> T = pkg.Function "bcast_bias_gelu"
        for n in [ 1L; 8L; 3L ] do
            let x, b = torch.randn(n, 768L), torch.randn(768L)
            Assert.True((f x b).allclose((x + b).gelu(), rtol = 1e-5, atol = 1e-5))
        let x, b = torch.randn(5L, 768L, dtype = torch.float64), torch.randn(768L, dtype = torch.float64)
        let y = f x b
        Assert.Equal(torch.float64, y.dtype)
        Assert.True(y.allclose((x + b).gelu(), rtol = 1e-7, atol = 1e-7))
        let e = Assert.Throws<Runtime.KgenException>(fun () -> f (torch.randn(4L, 767L)) (torch.randn(767L)) |> ignore)
        Assert.Contains("float32[N,768], float32[768]", e.Message)
        Assert.Contains("float64[N,768], float64[768]", e.Message)
        Assert.Contains("signature float64[N,768]", pkg.Describe())
    finally
        File.Delete path

[<Fact>]
let ``a function type that does not fit the entry is an error naming both`` () =
    let path = write "kinds" "bcast_bias_gelu" []
    try
        use pkg = Package.Load path
        let e = Assert.Throws<Runtime.KgenException>(fun () -> pkg.Function<T -> T>("bcast_bias_gelu") |> ignore)
        Assert.Contains("takes 2 parameter(s)", e.Message)
        let e = Assert.Throws<Runtime.KgenException>(fun () -> pkg.Function<T -> float32 -> T>("bcast_bias_gelu") |> ignore)
        Assert.Contains("parameter 2 is a tensor", e.Message)
    finally
        File.Delete path

[<Fact>]
let ``a file that is not a package is a located error`` () =
    let e = Assert.Throws<Runtime.KgenException>(fun () -> Package.Load(Path.Combine(repoRoot, "examples", "bcast_bias_gelu.json")) |> ignore)
    Assert.Contains("not a kgen kernel package", e.Message)
