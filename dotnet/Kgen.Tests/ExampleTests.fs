// Every example is real F#: examples/*.fs are compiled by dotnet/Examples, and each one's
// quotations serialize to exactly the checked-in examples/NAME.json. A stale JSON fails here
// with the command that regenerates it, so machines without .NET still test real documents.
module Kgen.Tests.ExampleTests

open System
open System.IO
open System.Reflection
open Xunit
open Kgen
open Kgen.Tests.Support

let examplesAssembly = Assembly.Load "Examples"

let exampleSources () =
    Directory.GetFiles(Path.Combine(repoRoot, "examples"), "*.fs", SearchOption.AllDirectories) |> Array.sort

/// The bad inputs of tests/bad written by the F# compiler (the others were edited after
/// serialization, or are F# that does not compile, and come from tools/mkexamples.py).
let badSources () =
    Directory.GetFiles(Path.Combine(repoRoot, "tests", "bad"), "*.fs")
    |> Array.filter (fun f ->
        Path.GetFileName f <> "unknown_member_key.fs"
        && not ((File.ReadAllText f).Contains "NOTE: the JSON document was edited"))
    |> Array.sort

[<Fact>]
let ``every examples/*.json is what the serializer writes for its .fs`` () =
    let stale =
        [ for fs in Array.append (exampleSources ()) (badSources ()) do
              let json = Path.ChangeExtension(fs, ".json")
              let doc = Collect.documentOfSource examplesAssembly fs
              if not (File.Exists json) || File.ReadAllText json <> doc.Json then
                  yield Path.GetRelativePath(repoRoot, json) ]
    if not stale.IsEmpty then
        failwithf "%d example document(s) differ from the serializer's output (regenerate with tools/regen-examples):\n%s"
            stale.Length (String.concat "\n" stale)

[<Fact>]
let ``the bad inputs F# can write are real F#`` () =
    Assert.True(badSources().Length >= 25, sprintf "%d" (badSources().Length))

[<Fact>]
let ``every example has at least one entry with a signature`` () =
    for fs in exampleSources () do
        let doc = Collect.documentOfSource examplesAssembly fs |> fun d -> parse d.Json
        let entries = doc |> prop "entries"
        Assert.True(entries.GetArrayLength() > 0, fs)
        let mutable s = Unchecked.defaultof<System.Text.Json.JsonElement>
        Assert.True(entries.[0].TryGetProperty("signature", &s), fs)

/// The three-way check of every example (kgen on the emulator, the F# function run by
/// TorchSharp, the TorchScript twin through torch.jit.compile), in a child process:
/// TorchSharp's torch.jit.compile lets a TorchScript compile error terminate the process
/// (a C++ exception through P/Invoke), which must fail this test, not kill the test host.
[<Fact>]
let ``every example passes the three-way check`` () =
    let sources = exampleSources () |> Array.map (fun f -> "\"" + f + "\"") |> String.concat " "
    let psi = Diagnostics.ProcessStartInfo("bash", sprintf "\"%s\" check %s" (Path.Combine(repoRoot, "tools", "kgen-fsharp")) sources,
                                           RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
                                           WorkingDirectory = repoRoot)
    use p = Diagnostics.Process.Start psi
    let err = p.StandardError.ReadToEndAsync()
    let out = p.StandardOutput.ReadToEnd()
    p.WaitForExit()
    let tail (s: string) = if s.Length > 6000 then s.Substring(s.Length - 6000) else s
    if p.ExitCode <> 0 then
        let bad = out.Split('\n') |> Array.filter (fun l -> l.Contains "MISMATCH") |> String.concat "\n"
        failwithf "kgen-fsharp check exited %d\n%s\n--- last output ---\n%s\n--- stderr ---\n%s" p.ExitCode bad (tail out) (tail err.Result)
    Assert.Contains("mismatch(es)", out)
