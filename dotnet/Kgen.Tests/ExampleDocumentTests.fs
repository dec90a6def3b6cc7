// Every examples/*.json is what the serializer writes for its .fs (a stale JSON fails here with
// the command that regenerates it). The serializer writes some of an example module's state (a
// capture's range: its weights' minimum and maximum), and the example modules are process-wide
// values whose F# module initializer seeds torch's one global generator and draws their weights:
// when another test draws from that generator on another thread at that moment (dropout in
// TrainingTests, a seeded GradTests), the weights differ (CI saw vgg.json's first convolution
// weights move so). So the documents are made from a fresh load of the examples assembly, in an
// AssemblyLoadContext of its own (its own module statics, the rest shared), in a collection that
// runs alone, after the others; a failure prints where file and serializer part.
namespace Kgen.Tests

open System
open System.IO
open System.Reflection
open System.Runtime.Loader
open Xunit
open Kgen

[<CollectionDefinition("alone", DisableParallelization = true)>]
type AloneCollection() = class end

[<Collection("alone")>]
module ExampleDocumentTests =
    open Kgen.Tests.Support
    open Kgen.Tests.ExampleTests

    /// The examples assembly loaded again, alone in a context of its own: its modules' statics
    /// (seeded weights, batch-norm statistics) are initialized afresh, by this test's thread,
    /// while no other test runs; its dependencies (Kgen, TorchSharp, FSharp.Core) resolve to the
    /// process's copies, so the serializer sees the same types.
    type private FreshExamples() =
        inherit AssemblyLoadContext("fresh examples", true)
        override _.Load(_: AssemblyName) : Assembly = null

    let private freshExamples () =
        FreshExamples().LoadFromAssemblyPath examplesAssembly.Location

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
        let examples = freshExamples ()
        Assert.NotSame(examplesAssembly, examples)
        let stale =
            [ for fs in Array.append (exampleSources ()) (badSources ()) do
                  let json = Path.ChangeExtension(fs, ".json")
                  let doc = Collect.documentOfSource examples fs
                  if not (File.Exists json) then yield Path.GetRelativePath(repoRoot, json) + ": missing"
                  else
                      let text = File.ReadAllText json
                      if text <> doc.Json then yield Path.GetRelativePath(repoRoot, json) + ": " + firstDifference text doc.Json ]
        if not stale.IsEmpty then
            failwithf "%d example document(s) differ from the serializer's output (regenerate with tools/regen-examples):\n%s"
                stale.Length (String.concat "\n" stale)
