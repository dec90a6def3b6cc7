// F# as written (issue 27): a [<ReflectedDefinition>] function named as the entry
// (kgen-fsharp check --entry, Kgen.compileFn, Kgen.compile <@ f @>) with its signature checked
// against its parameters, the hints under F#'s errors about TorchSharp's overloads, and kgen's
// warning for x.split(3L, 2L). The loops over int64 ranges, arrays and lists are examples
// (cf_int64_ranges, fs_seq_loops), three-way checked with every example in ExampleTests.
module Kgen.Tests.FSharpTests

open System
open System.IO
open System.Reflection
open Xunit
open TorchSharp
open Kgen
open Kgen.Tests.Support

type Tensor = torch.Tensor

let private close (a: Tensor) (b: Tensor) = a.allclose(b, rtol = 1e-5, atol = 1e-6)
let private examples = Assembly.Load "Examples"
let private source = Path.Combine(repoRoot, "examples", "fs_reflected_entry.fs")
let private moduleType () = (Collect.moduleOfSource examples source).Value

/// A function F# keeps no body for (no [<ReflectedDefinition>]).
let plain (x: Tensor) = x * 2.0f

type private Marker = class end

[<Fact>]
let ``Kgen.compileFn and Kgen.compile of a reflected function run its body`` () =
    let gate = Examples.FsReflectedEntry.gate
    let f = Kgen.compileFn Examples.FsReflectedEntry.gate
    let f2 = Kgen.compile <@ Examples.FsReflectedEntry.gate @>
    for rows in [ 5L; 1L; 9L ] do
        let x, g = torch.randn(rows, 7L), torch.randn(rows, 7L)
        let want = gate x g
        Assert.True(close (f x g) want, sprintf "compileFn, %d rows" rows)
        Assert.True(close (f2 x g) want, sprintf "compile <@ gate @>, %d rows" rows)

[<Fact>]
let ``a function without a reflected definition is an error naming it`` () =
    let e1 = Assert.Throws<Serializer.SerializeError>(fun () -> Kgen.compileFn plain |> ignore)
    Assert.Contains("plain has no reflected definition: mark it [<ReflectedDefinition>]", e1.Data0)
    let e2 = Assert.Throws<Serializer.SerializeError>(fun () -> Kgen.compile <@ plain @> |> ignore)
    Assert.Equal(e1.Data0, e2.Data0)
    let e3 = Assert.Throws<Serializer.SerializeError>(fun () -> Collect.reflectedEntry typeof<Marker>.DeclaringType "plain" (Some "float32[3]") |> ignore)
    Assert.Contains("plain has no reflected definition", e3.Data0)

[<Fact>]
let ``--entry names a reflected function: the three-way check runs it`` () =
    let sg = Some "float32[5,7], float32[5,7]"
    let entries = Collect.entriesOfSourceNamed Collect.zeros sg (Some "gate") examples source
    Assert.Equal<string list>([ "fs_reflected_entry"; "gate" ], entries |> List.map (fun e -> e.Name))
    use ctx = new Runtime.Context()
    let results = Check.entries ctx entries (Some "gate") Map.empty 0UL
    let name, rows = List.exactlyOne results
    Assert.Equal("gate", name)
    for r in rows do Assert.True(r.Kgen.Ok && r.TorchScript.Ok, Check.format r)
    // a name that is no function leaves the entries as they are (kgen-fsharp says which exist)
    Assert.Equal(1, (Collect.entriesOfSourceNamed Collect.zeros sg (Some "nope") examples source).Length)

[<Fact>]
let ``the signature of a named function is checked against its parameters`` () =
    let err (sg: string option) =
        (Assert.Throws<Serializer.SerializeError>(fun () -> Collect.reflectedEntry (moduleType ()) "gate" sg |> ignore)).Data0
    Assert.Equal("gate takes 2 parameter(s) (x: Tensor, g: Tensor), but the signature \"float32[5,7]\" describes 1", err (Some "float32[5,7]"))
    Assert.Equal("signature item 2 (float32) is a number, but parameter 'g' of gate is a Tensor (give its dtype and shape, e.g. float32[5,7])",
                 err (Some "float32[5,7], float32"))
    Assert.Contains("gate needs a signature: give it with --sig (one item per parameter: x: Tensor, g: Tensor)", err None)
    // captures are not parameters
    Assert.True((Collect.reflectedEntry (moduleType ()) "gate" (Some "float32[N,7], float32[N,7], w=float32[7]")).IsSome)

[<Fact>]
let ``hints under F#'s FS0041 for TorchSharp's Scalar and Tensor overloads`` () =
    let dir = Directory.CreateTempSubdirectory "kgen-hints"
    let file = Path.Combine(dir.FullName, "Model.fs")
    File.WriteAllLines(file, [| "module Model"; "let f = <@ fun (hidden: torch.Tensor) -> hidden.pow(2.0f) + hidden.eq(k * 2.0f) + hidden.add(1) @>" |])
    let line (col: int) (name: string) (ty: string) =
        sprintf "%s(2,%d): error FS0041: A unique overload for method '%s' could not be determined based on type information prior to this program point. A type annotation may be needed.\u001d\u001dKnown type of argument: %s\u001d\u001dCandidates:\u001d - torch.Tensor.%s(exponent: Scalar) : torch.Tensor\u001d - torch.Tensor.%s(exponent: torch.Tensor) : torch.Tensor"
            file col name ty name name
    let hint l = (Hints.forError l).Value
    Assert.Equal("  hint: TorchSharp's pow takes a Scalar or a Tensor, and F# converts a float32 to both: say which, hidden.pow(2.0f.ToScalar()) (ToScalar comes with `open TorchSharp`)",
                 hint (line 49 "pow" "float32"))
    Assert.Contains("hidden.eq((k * 2.0f).ToScalar())", hint (line 68 "eq" "float32"))
    Assert.Contains("F# converts an int to both: say which, hidden.add((1).ToScalar())", hint (line 90 "add" "int"))
    // the annotated errors: the U+001D line breaks read as spaces, the hint under its error
    let shown = Hints.annotate [ line 49 "pow" "float32"; sprintf "%s(2,1): error FS0039: The value 'k' is not defined." file ]
    Assert.Equal(3, shown.Length)
    Assert.Contains("Known type of argument: float32 Candidates: - torch.Tensor.pow", shown.[0])
    Assert.StartsWith("  hint:", shown.[1])
    Assert.EndsWith("The value 'k' is not defined.", shown.[2])
    dir.Delete true

[<Fact>]
let ``x.split(3L, 2L) is a warning of the compiled entry`` () =
    use ctx = new Runtime.Context()
    use m = ctx.Load(File.ReadAllText(Path.Combine(repoRoot, "examples", "fs_split_overloads.json")))
    let x = torch.randn(5L, 4L, 6L)
    use c = m.Specialize("fs_split_overloads", [ x ], [])
    Assert.StartsWith("fs_split_overloads.fs:11:20: warning: x.split(3L, 2L) is TorchSharp's split(params int64[] sizes)", c.Warnings)
    use m2 = ctx.Load(File.ReadAllText(Path.Combine(repoRoot, "examples", "cf_int64_ranges.json")))
    use c2 = m2.Specialize("cf_int64_ranges", [ torch.randn(3L, 16L); torch.randn(16L) ], [])
    Assert.Equal("", c2.Warnings)
