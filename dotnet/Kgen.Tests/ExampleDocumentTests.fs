// Every examples/*.json is what the serializer writes for its .fs (a stale JSON fails here with
// the command that regenerates it). In a collection that runs alone: once, in CI, this test saw a
// document differ while the other test modules ran beside it, and passed alone and in two full
// runs after — the example modules are process-wide values, and some test beside it may change
// one (not found yet: the failure now prints where the texts part, to find it next time).
namespace Kgen.Tests

open System
open System.IO
open Xunit
open Kgen

[<CollectionDefinition("alone", DisableParallelization = true)>]
type AloneCollection() = class end

[<Collection("alone")>]
module ExampleDocumentTests =
    open Kgen.Tests.Support
    open Kgen.Tests.ExampleTests

    /// where two texts part: the line and 80 characters of each from there
    let private firstDifference (a: string) (b: string) =
        let n = min a.Length b.Length
        let mutable i = 0
        while i < n && a.[i] = b.[i] do i <- i + 1
        let line = a.Substring(0, i).Split('\n').Length
        let cut (s: string) = if i >= s.Length then "(end)" else s.Substring(i, min 80 (s.Length - i))
        sprintf "line %d: file %A, serializer %A" line (cut a) (cut b)

    [<Fact>]
    let ``every examples/*.json and examples/models/*.json is what the serializer writes for its .fs`` () =
        let stale =
            [ for fs in Array.append (exampleSources ()) (badSources ()) do
                  let json = Path.ChangeExtension(fs, ".json")
                  let doc = Collect.documentOfSource examplesAssembly fs
                  if not (File.Exists json) then yield Path.GetRelativePath(repoRoot, json) + ": missing"
                  else
                      let text = File.ReadAllText json
                      if text <> doc.Json then yield Path.GetRelativePath(repoRoot, json) + ": " + firstDifference text doc.Json ]
        if not stale.IsEmpty then
            failwithf "%d example document(s) differ from the serializer's output (regenerate with tools/regen-examples):\n%s"
                stale.Length (String.concat "\n" stale)
