// Every examples/*.json is what the serializer writes for its .fs (a stale JSON fails here with
// the command that regenerates it). In a collection that runs alone, after the others: the example
// modules are process-wide values and the serializer writes some of their state (a batch norm's
// num_batches_tracked as a capture's range), so a test that ran a training-mode forward beside it
// made this test flaky (ExampleTests now leaves those entries to the three-way check's process);
// a failure prints where file and serializer part.
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
