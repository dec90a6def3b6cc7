// The NuGet package on day one (docs/package.md): tools/pack.sh packs Kgen under a version of
// its own into a temporary folder; a console project written here from scratch references it
// and TorchSharp-cpu 0.107.0 (NuGet.Config: that folder beside the machine's usual sources,
// the global packages folder kept), builds, and runs twice with one fresh KGEN_CACHE_DIR and
// no KGEN_LIB: libkgen.so must come from the package, `Kgen.compile` must match TorchSharp,
// an offline kernel package (Kgen.Package.Load) must run with NVRTC made unloadable,
// the first run must compile its emulator object and the second must find it in the cache.
module Kgen.Tests.PackageTests

open System
open System.Diagnostics
open System.IO
open System.IO.Compression
open Xunit
open Xunit.Abstractions
open Kgen.Tests.Support

/// The consumer: what a user writes after `dotnet add package Kgen`.
let private programFs = """// A day-one consumer of the Kgen package (written by Kgen.Tests.PackageTests).
open Microsoft.FSharp.Quotations
open TorchSharp
open Kgen

[<EntryPoint>]
let main _ =
    torch.manual_seed 7L |> ignore
    let x = torch.randn(8L, 768L)
    let b = torch.randn(768L)
    let expected = (x + b).gelu()
    let check (name: string) (y: torch.Tensor) =
        let err = (y - expected).abs().max().item<float32>()
        let ok = y.allclose(expected, rtol = 1e-5, atol = 1e-5)
        printfn "KGEN_PKG %s_max_abs_err=%g" name err
        printfn "KGEN_PKG %s_allclose=%b" name ok
        ok

    // the compiled function and what it compiled (emulator objects built or found in the cache)
    let q = <@ fun (x: torch.Tensor) (b: torch.Tensor) -> (x + b).gelu() @>
    use compiled = new Compile.Compiled<_>(q)
    let ok1 = check "compiled" (compiled.Function x b)
    let s = compiled.CompileStats
    printfn "KGEN_PKG specializations=%d" s.Specializations
    printfn "KGEN_PKG emu_compiles=%d" s.EmuCompiles
    printfn "KGEN_PKG emu_cache_hits=%d" s.EmuCacheHits

    // the public one-liner
    let f = Kgen.compile <@ fun (x: torch.Tensor) (b: torch.Tensor) -> (x + b).gelu() @>
    let ok2 = check "compile" (f x b)

    // buildTransitive/Kgen.targets: inner quotation nodes carry their source positions
    let inner =
        match q with
        | Patterns.Lambda(_, Patterns.Lambda(_, body)) -> not body.CustomAttributes.IsEmpty
        | _ -> false
    printfn "KGEN_PKG quotation_positions=%b" inner

    // an offline kernel package (written by the test with Kgen.Package.Write): an entry as a typed
    // function with no quotation; KGEN_NVRTC_LIB points nowhere, so nothing can use NVRTC
    use pkg = Kgen.Package.Load(System.Environment.GetEnvironmentVariable "KGEN_TEST_KGPKG")
    let g : torch.Tensor -> torch.Tensor -> torch.Tensor = pkg.Function "bcast_bias_gelu"
    let ok3 = check "package" (g x b)
    printfn "KGEN_PKG package_entries=%s" (String.concat "," pkg.Entries)
    printfn "KGEN_PKG libkgen=%s" Kgen.Native.Lib.KgenPath
    // the libcjson.so.1 the process mapped: the package's copy, beside libkgen.so
    System.IO.File.ReadLines "/proc/self/maps"
    |> Seq.choose (fun l -> match l.IndexOf '/' with i when i >= 0 && l.EndsWith "/libcjson.so.1" -> Some(l.Substring i) | _ -> None)
    |> Seq.distinct
    |> String.concat ";"
    |> printfn "KGEN_PKG libcjson=%s"
    if ok1 && ok2 && ok3 then 0 else 1
"""

let private projectTemplate = """<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFramework>net10.0</TargetFramework>
    <SatelliteResourceLanguages>en</SatelliteResourceLanguages>
  </PropertyGroup>
  <ItemGroup>
    <Compile Include="Program.fs" />
  </ItemGroup>
  <ItemGroup>
    <PackageReference Include="Kgen" Version="@VERSION@" />
    <PackageReference Include="TorchSharp-cpu" Version="0.107.0" />
  </ItemGroup>
</Project>
"""
let private projectXml (version: string) = projectTemplate.Replace("@VERSION@", version)

/// The package folder beside the sources of the machine's own NuGet configuration (user and
/// machine-wide files are still read: no <clear/>), so TorchSharp-cpu comes as usual.
let private nugetTemplate = """<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="kgen-package-test" value="@FEED@" />
  </packageSources>
</configuration>
"""
let private nugetConfig (feed: string) = nugetTemplate.Replace("@FEED@", Security.SecurityElement.Escape feed)

/// Runs a command in `cwd` with `env` changes (None removes), its output in a file of `logDir`
/// (so build servers that outlive it cannot hold a pipe open); the exit code and output.
let private run (logDir: string) (cwd: string) (env: (string * string option) list) (timeoutS: int) (cmd: string list) =
    let log = Path.Combine(logDir, sprintf "log-%s.txt" (Guid.NewGuid().ToString "N"))
    let psi = ProcessStartInfo("bash", WorkingDirectory = cwd, UseShellExecute = false)
    psi.ArgumentList.Add "-c"
    psi.ArgumentList.Add "log=\"$1\"; shift; exec \"$@\" >\"$log\" 2>&1 </dev/null"
    psi.ArgumentList.Add "run"
    psi.ArgumentList.Add log
    for a in cmd do psi.ArgumentList.Add a
    // what the test host's MSBuild leaves in the environment is not the user's
    for k in List.ofSeq psi.Environment.Keys do
        if k.StartsWith("MSBUILD", StringComparison.OrdinalIgnoreCase) || k.StartsWith("VSTEST", StringComparison.OrdinalIgnoreCase) then
            psi.Environment.Remove k |> ignore
    for k, v in env do
        match v with
        | Some v -> psi.Environment.[k] <- v
        | None -> psi.Environment.Remove k |> ignore
    let sw = Stopwatch.StartNew()
    use p = Process.Start psi
    let finished = p.WaitForExit(timeoutS * 1000)
    if not finished then p.Kill true
    p.WaitForExit()
    let out = if File.Exists log then File.ReadAllText log else ""
    (try File.Delete log with _ -> ())
    let line = String.Join(" ", cmd)
    if not finished then failwithf "timed out after %d s: %s\n%s" timeoutS line out
    p.ExitCode, out, sw.Elapsed.TotalSeconds

let private mustRun logDir cwd env timeoutS cmd =
    let code, out, secs = run logDir cwd env timeoutS cmd
    if code <> 0 then failwithf "exit %d: %s (in %s)\n%s" code (String.Join(" ", cmd)) cwd out
    out, secs

/// The KGEN_PKG name=value lines of a run.
let private values (out: string) =
    out.Split('\n')
    |> Array.choose (fun l ->
        let l = l.Trim()
        if l.StartsWith "KGEN_PKG " then
            let kv = l.Substring 9
            match kv.IndexOf '=' with
            | i when i > 0 -> Some(kv.Substring(0, i), kv.Substring(i + 1))
            | _ -> None
        else None)
    |> Map.ofArray

let private dotnetExe () =
    match Environment.GetEnvironmentVariable "DOTNET_HOST_PATH" with
    | p when not (String.IsNullOrEmpty p) && File.Exists p -> Some p
    | _ ->
        (Environment.GetEnvironmentVariable "PATH" |> string).Split(':')
        |> Array.map (fun d -> Path.Combine(d, "dotnet"))
        |> Array.tryFind File.Exists

type PackageTests(out: ITestOutputHelper) =
    [<Fact>]
    member _.``the packed Kgen builds and runs in a fresh project, its kernels cached across processes``() =
        match dotnetExe () with
        | None -> out.WriteLine "=== SKIPPED: the package test: no .NET SDK (dotnet) on PATH ==="
        | Some dotnet ->
        let tmp = Path.Combine(Path.GetTempPath(), "kgen-package-test-" + Guid.NewGuid().ToString("N").Substring(0, 12))
        // a version of its own: the global packages folder never holds a stale copy of it
        let version = sprintf "0.0.0-test.%s.g%s" (DateTime.UtcNow.ToString "yyyyMMddHHmmss") (Guid.NewGuid().ToString("N").Substring(0, 8))
        let globalPackages =
            match Environment.GetEnvironmentVariable "NUGET_PACKAGES" with
            | p when not (String.IsNullOrEmpty p) -> p
            | _ -> Path.Combine(Environment.GetFolderPath Environment.SpecialFolder.UserProfile, ".nuget", "packages")
        let feed = Path.Combine(tmp, "feed")
        let app = Path.Combine(tmp, "app")
        let cache = Path.Combine(tmp, "kcache")
        let mutable passed = false
        try
            Directory.CreateDirectory feed |> ignore
            Directory.CreateDirectory app |> ignore
            Directory.CreateDirectory cache |> ignore
            let total = Stopwatch.StartNew()

            // 1. pack
            // the libkgen.so the rest of the suite tests ($KGEN_LIB, set by tools/test.sh), else
            // the one tools/pack.sh builds
            let lib =
                match Environment.GetEnvironmentVariable "KGEN_LIB" with
                | p when not (String.IsNullOrEmpty p) -> [ "--lib"; Path.GetFullPath p ]
                | _ -> []
            let packOut, packS = mustRun tmp repoRoot [] 600 ([ "bash"; "tools/pack.sh"; "-o"; feed; "--version"; version ] @ lib)
            let pkg = Path.Combine(feed, sprintf "Kgen.%s.nupkg" version)
            Assert.True(File.Exists pkg, sprintf "tools/pack.sh wrote no %s\n%s" pkg packOut)
            let entries =
                use z = ZipFile.OpenRead pkg
                z.Entries |> Seq.map (fun e -> e.FullName) |> Set.ofSeq
            for e in [ "lib/net10.0/Kgen.dll"; "lib/net10.0/Kgen.Native.dll"; "runtimes/linux-x64/native/libkgen.so"
                       "runtimes/linux-x64/native/libcjson.so.1"; "buildTransitive/Kgen.targets"; "Kgen.nuspec" ] do
                Assert.True(entries.Contains e, sprintf "the package lacks %s; it holds:\n  %s" e (String.Join("\n  ", entries)))
            let nuspec =
                use z = ZipFile.OpenRead pkg
                use r = new StreamReader((z.GetEntry "Kgen.nuspec").Open())
                r.ReadToEnd()
            Assert.True(nuspec.Contains "id=\"TorchSharp\"", sprintf "the package should depend on TorchSharp:\n%s" nuspec)
            Assert.False(nuspec.Contains "id=\"TorchSharp-cpu\"", sprintf "the package should leave the backend to its user:\n%s" nuspec)
            Assert.False(nuspec.Contains "id=\"Kgen.Native\"", sprintf "Kgen.Native belongs inside the package:\n%s" nuspec)

            // 2. the consumer, written from scratch, built against the package
            File.WriteAllText(Path.Combine(app, "App.fsproj"), projectXml version)
            File.WriteAllText(Path.Combine(app, "Program.fs"), programFs)
            File.WriteAllText(Path.Combine(app, "NuGet.Config"), nugetConfig feed)
            let buildOut, buildS =
                mustRun tmp app [] 600 [ dotnet; "build"; "App.fsproj"; "-c"; "Release"; "-nologo"; "--disable-build-servers"; "-o"; Path.Combine(app, "out") ]
            let dll = Path.Combine(app, "out", "App.dll")
            Assert.True(File.Exists dll, sprintf "no %s after the build\n%s" dll buildOut)

            // 3. run it twice: no KGEN_LIB, one fresh kernel cache, a kernel package, no NVRTC
            let kgpkg = Path.Combine(tmp, "model.kgpkg")
            let doc = File.ReadAllText(Path.Combine(repoRoot, "examples", "bcast_bias_gelu.json"))
            Kgen.Package.Write(kgpkg, [ { Json = doc; Entry = None; Signature = None } ], [])
            let env = [ "KGEN_LIB", None; "KGEN_CACHE_DIR", Some cache; "KGEN_TEST_KGPKG", Some kgpkg; "KGEN_NVRTC_LIB", Some "/nonexistent/libnvrtc.so" ]
            let runOnce n =
                let o, s = mustRun tmp app env 300 [ dotnet; dll ]
                out.WriteLine(sprintf "run %d (%.1f s):\n%s" n s o)
                values o, o
            let v1, o1 = runOnce 1
            let v2, o2 = runOnce 2
            let get (v: Map<string, string>) o k =
                match v.TryFind k with
                | Some s -> s
                | None -> failwithf "the consumer printed no %s:\n%s" k o
            let num v o k = Int64.Parse(get v o k)
            for v, o in [ v1, o1; v2, o2 ] do
                Assert.True((get v o "compiled_allclose" = "true"), sprintf "Compiled's result differs from TorchSharp's:\n%s" o)
                Assert.True((get v o "compile_allclose" = "true"), sprintf "Kgen.compile's result differs from TorchSharp's:\n%s" o)
                Assert.True((get v o "package_allclose" = "true"), sprintf "the kernel package's function differs from TorchSharp's:\n%s" o)
                Assert.True((get v o "package_entries" = "bcast_bias_gelu"), sprintf "the kernel package's entries:\n%s" o)
                let lib = get v o "libkgen"
                Assert.True(lib.StartsWith(Path.Combine(app, "out") + "/") && lib.EndsWith "runtimes/linux-x64/native/libkgen.so",
                            sprintf "libkgen.so should be the package's copy in the app's output, was %s" lib)
                let cjson = get v o "libcjson"
                Assert.True((cjson = Path.Combine(Path.GetDirectoryName lib, "libcjson.so.1")),
                            sprintf "libcjson.so.1 should be the package's copy beside libkgen.so, was %s" cjson)
                Assert.True((get v o "quotation_positions" = "true"),
                            sprintf "the package's buildTransitive/Kgen.targets should turn on --quotations-debug+:\n%s" o)
            Assert.True(num v1 o1 "emu_compiles" >= 1L, sprintf "the first run should compile its emulator object:\n%s" o1)
            Assert.True((num v2 o2 "emu_compiles" = 0L), sprintf "the second run should compile nothing:\n%s" o2)
            Assert.True(num v2 o2 "emu_cache_hits" >= 1L, sprintf "the second run should find its object in KGEN_CACHE_DIR:\n%s" o2)
            out.WriteLine(sprintf "package test: pack %.1f s, consumer build %.1f s, total %.1f s" packS buildS total.Elapsed.TotalSeconds)
            passed <- true
        finally
            // the version is this test's own: its copy in the global packages folder goes too
            (try Directory.Delete(Path.Combine(globalPackages, "kgen", version.ToLowerInvariant()), true) with _ -> ())
            (try Directory.Delete(Path.Combine(globalPackages, "kgen")) with _ -> ()) // when empty
            if passed then (try Directory.Delete(tmp, true) with _ -> ())
            else out.WriteLine(sprintf "package test: the work folder is kept: %s" tmp)
