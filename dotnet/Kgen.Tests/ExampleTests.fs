// Every example is real F#: examples/*.fs are compiled by dotnet/Examples, and each one's
// quotations serialize to exactly the checked-in examples/NAME.json. A stale JSON fails here
// with the command that regenerates it (ExampleDocumentTests), so machines without .NET still
// test real documents.
module Kgen.Tests.ExampleTests

open System
open System.IO
open System.Reflection
open Xunit
open Kgen
open Kgen.Tests.Support

let examplesAssembly = Assembly.Load "Examples"

/// Every example source: examples/*.fs and the real model forwards of examples/models/*.fs.
let exampleSources () =
    Directory.GetFiles(Path.Combine(repoRoot, "examples"), "*.fs", SearchOption.AllDirectories) |> Array.sort

/// The examples kgen compiles today (examples/*.fs). The model forwards of examples/models
/// (docs/models.md) need the ops of issue 11 and join the checks when they compile.
let compiledExampleSources () =
    Directory.GetFiles(Path.Combine(repoRoot, "examples"), "*.fs", SearchOption.TopDirectoryOnly) |> Array.sort

/// The model forwards transcribed from public TorchSharp code (examples/models, docs/models.md).
let modelSources () =
    Directory.GetFiles(Path.Combine(repoRoot, "examples", "models"), "*.fs") |> Array.sort

/// The bad inputs of tests/bad written by the F# compiler (the others were edited after
/// serialization, or are F# that does not compile, and come from tools/mkexamples.py).
let badSources () =
    Directory.GetFiles(Path.Combine(repoRoot, "tests", "bad"), "*.fs")
    |> Array.filter (fun f ->
        Path.GetFileName f <> "unknown_member_key.fs"
        && not ((File.ReadAllText f).Contains "NOTE: the JSON document was edited"))
    |> Array.sort

[<Fact>]
let ``the model forwards of examples/models are there and each has its JSON`` () =
    // what docs/models.md measures: the forwards issue 11's acceptance names
    let names = modelSources () |> Array.map Path.GetFileNameWithoutExtension |> Set.ofArray
    for m in [ "llama"; "modestgpt"; "nasbert"; "phi3"; "torchsharp_fun"; "tutorial_mlp"
               // issue 12's CNNs
               "mnist"; "alexnet"; "resnet"; "mobilenet"; "vgg"; "googlenet"; "m5"; "textcnn" ] do
        Assert.True(names.Contains m, sprintf "examples/models/%s.fs is missing" m)
        Assert.True(File.Exists(Path.Combine(repoRoot, "examples", "models", m + ".json")), m)

/// The eager side of the three-way check on every model forward: the F# entry run by TorchSharp
/// (Kgen.Eval; the modules' compiled forwards) on inputs of its signature, so the transcriptions
/// stay real working code. Integer inputs (token and position ids) are drawn from the range
/// their signature gives (`int64[2,8] in [0, 16)`: inside the model's vocabulary).
[<Fact>]
let ``every model forward of examples/models runs in TorchSharp`` () =
    use g = new TorchSharp.torch.Generator(17UL, TorchSharp.torch.CPU)
    let mutable ran = 0
    for fs in modelSources () do
        let doc = Collect.documentOfSource examplesAssembly fs
        let root = parse doc.Json
        let entries = Collect.entriesOfSource Collect.zeros None examplesAssembly fs
        // not the entries in training mode (resnet_basic_block_train): their forward updates the
        // process-wide example modules' batch-norm statistics and num_batches_tracked in place,
        // whose values the serializer writes (a capture's range), so ExampleDocumentTests would see
        // another document after this test; the three-way check runs them in a process of its own
        for (i, en) in List.indexed entries |> List.filter (fun (_, en) -> not (en.Name.EndsWith "_train")) do
            let pars, _ = Check.signatureOf ((root |> prop "entries").[i] |> prop "signature") Map.empty
            let args =
                pars |> List.map (function
                    | Check.TensorParam(dt, shape, nz, r) -> box (Check.randomTensorIn g dt shape nz r)
                    | Check.ScalarParam dt -> failwithf "%s: a number parameter (%s)" en.Name dt)
            let outs =
                try Eval.applyAll (Eval.run en.Expr) args |> Check.flatten
                with ex -> failwithf "%s, entry %s: %s" (Path.GetFileName fs) en.Name (ex.ToString())
            Assert.True(not outs.IsEmpty, en.Name)
            for o in outs do
                Assert.True(o.numel() > 0L, en.Name)
            ran <- ran + 1
    Assert.True(ran >= 28, sprintf "%d model entries ran" ran)

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

/// The crashed thread of a .NET crash report (createdump's *.crashreport.json, written when
/// DOTNET_EnableCrashReport is set): its frames, native module and function, innermost first.
let private crashedFrames (dir: string) =
    Directory.GetFiles(dir, "*.crashreport.json")
    |> Array.collect (fun f ->
        try
            use doc = Text.Json.JsonDocument.Parse(File.ReadAllText f)
            let str (e: Text.Json.JsonElement) (k: string) =
                let mutable v = Unchecked.defaultof<Text.Json.JsonElement>
                if e.TryGetProperty(k, &v) && v.ValueKind = Text.Json.JsonValueKind.String then v.GetString() else ""
            [| for t in doc.RootElement.GetProperty("payload").GetProperty("threads").EnumerateArray() do
                   if str t "crashed" = "true" then
                       yield sprintf "crashed thread %s (%s):" (str t "native_thread_id") (Path.GetFileName f)
                       for fr in t.GetProperty("stack_frames").EnumerateArray() |> Seq.truncate 48 do
                           let name = match str fr "method_name", str fr "unmanaged_name" with
                                      | m, _ when m <> "" -> m
                                      | _, u when u <> "" -> u
                                      | _ -> "?"
                           yield sprintf "  %s!%s" (str fr "native_module") name |]
        with e -> [| sprintf "%s: unreadable (%s)" f e.Message |])
    |> String.concat "\n"

/// The three-way check of every example (kgen on the emulator, the F# function run by
/// TorchSharp, the TorchScript twin through torch.jit.compile), in a child process:
/// TorchSharp's torch.jit.compile lets a TorchScript compile error terminate the process
/// (a C++ exception through P/Invoke), which must fail this test, not kill the test host.
/// A child that dies of a signal fails the test with the signal and its crashed thread's
/// stack (the runtime's crash report: the emulated kernel, kgen's function or TorchSharp's
/// frame it died in), and its stderr without libtorch's NNPACK warnings (a CI run once ended
/// with a child gone silently, its stderr's tail all warnings).
let private threeWay (files: string[]) =
    let sources = files |> Array.map (fun f -> "\"" + f + "\"") |> String.concat " "
    let psi = Diagnostics.ProcessStartInfo("bash", sprintf "\"%s\" check %s" (Path.Combine(repoRoot, "tools", "kgen-fsharp")) sources,
                                           RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
                                           WorkingDirectory = repoRoot)
    let dumps = Path.Combine(Path.GetTempPath(), sprintf "kgen-threeway-%d-%s" Environment.ProcessId (Guid.NewGuid().ToString "N"))
    Directory.CreateDirectory dumps |> ignore
    for k, v in [ "DOTNET_DbgEnableMiniDump", "1"; "DOTNET_DbgMiniDumpType", "1"; "DOTNET_EnableCrashReport", "1"
                  "DOTNET_DbgMiniDumpName", Path.Combine(dumps, "kgen-fsharp.%p.dmp") ] do
        psi.Environment.[k] <- v
    try
        use p = Diagnostics.Process.Start psi
        let err = p.StandardError.ReadToEndAsync()
        let out = p.StandardOutput.ReadToEnd()
        p.WaitForExit()
        let tail (s: string) = if s.Length > 6000 then s.Substring(s.Length - 6000) else s
        if p.ExitCode <> 0 then
            let bad = out.Split('\n') |> Array.filter (fun l -> l.Contains "MISMATCH") |> String.concat "\n"
            let signal = if p.ExitCode > 128 then sprintf " (signal %d)" (p.ExitCode - 128) else ""
            let errs = err.Result.Split('\n') |> Array.filter (fun l -> not (l.Contains "NNPACK")) |> String.concat "\n"
            failwithf "kgen-fsharp check exited %d%s\n%s\n--- last output ---\n%s\n--- stderr (without NNPACK warnings) ---\n%s\n--- crash report ---\n%s"
                p.ExitCode signal bad (tail out) (tail errs) (crashedFrames dumps)
        Assert.Contains("mismatch(es)", out)
        out
    finally
        try Directory.Delete(dumps, true) with _ -> ()

[<Fact>]
let ``every example passes the three-way check`` () = threeWay (compiledExampleSources ()) |> ignore

/// Issues 11 and 12's acceptance: the real model forwards (Phi-3, GenAI Llama, ModestGpt, NasBert,
/// TorchSharp.Fun, the tutorial MLPs; MNIST, AlexNet, ResNet-18 and its basic block in training
/// mode, MobileNetV2, VGG-11, GoogLeNet, M5, TextCNN) compile and agree with TorchSharp and the
/// twin, on inputs in their signatures' ranges (token ids in the vocabulary) and the live
/// modules' weights.
[<Fact>]
let ``every model forward passes the three-way check`` () =
    let out = threeWay (modelSources ())
    // every entry of the model documents: 30 since the LSTM tagger
    Assert.Contains("30 entries checked, 0 mismatch(es)", out)
