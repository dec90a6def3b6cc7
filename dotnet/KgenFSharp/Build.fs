// kgen-fsharp build: F# sources -> a generated project (TorchSharp + Kgen, quotation debug
// ranges on) -> dotnet build -> the assembly loaded here -> one kgen document per source file.
// A compile error is reported with its F# position (exit 1), with kgen's hint under the ones
// TorchSharp's overloads cause (Kgen.Hints); the generated project lives in
// a work folder keyed by the sources' paths, so a rebuild of the same files is incremental.
module KgenFSharp.Build

open System
open System.Diagnostics
open System.IO
open System.Reflection
open System.Security.Cryptography
open System.Text

/// A user error: shown as it is, exit status 1.
exception UserError of string

let repoRoot () =
    match Environment.GetEnvironmentVariable "KGEN_ROOT" with
    | null | "" ->
        // bin/<cfg>/net10.0 under dotnet/KgenFSharp
        let here = AppContext.BaseDirectory
        Path.GetFullPath(Path.Combine(here, "../../../../.."))
    | r -> Path.GetFullPath r

let private workDir (sources: string list) =
    let key =
        sources |> String.concat "\n" |> Encoding.UTF8.GetBytes |> SHA256.HashData
        |> Convert.ToHexString
    let root =
        match Environment.GetEnvironmentVariable "KGEN_FSHARP_WORK" with
        | null | "" -> Path.Combine(Path.GetTempPath(), "kgen-fsharp")
        | d -> d
    Path.Combine(root, key.Substring(0, 16))

let private projectText (root: string) (sources: string list) =
    let sb = StringBuilder()
    let add (s: string) = sb.AppendLine s |> ignore
    add "<Project Sdk=\"Microsoft.NET.Sdk\">"
    add (sprintf "  <Import Project=\"%s\" />" (Path.Combine(root, "dotnet", "Quotations.props")))
    add "  <PropertyGroup><OutputType>Library</OutputType><TargetFramework>net10.0</TargetFramework>"
    add "    <AssemblyName>KgenSources</AssemblyName><SatelliteResourceLanguages>en</SatelliteResourceLanguages></PropertyGroup>"
    add "  <ItemGroup>"
    for s in sources do add (sprintf "    <Compile Include=\"%s\" />" (Security.SecurityElement.Escape s))
    add "  </ItemGroup>"
    add (sprintf "  <ItemGroup><ProjectReference Include=\"%s\" /></ItemGroup>" (Path.Combine(root, "dotnet", "Kgen", "Kgen.fsproj")))
    add "</Project>"
    sb.ToString()

let private run (exe: string) (args: string) (cwd: string) =
    let psi = ProcessStartInfo(exe, args, WorkingDirectory = cwd, RedirectStandardOutput = true,
                               RedirectStandardError = true, UseShellExecute = false)
    use p = Process.Start psi
    let out = p.StandardOutput.ReadToEndAsync()
    let err = p.StandardError.ReadToEnd()
    p.WaitForExit()
    p.ExitCode, out.Result + err

/// Compile `sources` and load the assembly.
let compile (sources: string list) : Assembly =
    let sources = sources |> List.map Path.GetFullPath
    for s in sources do
        if not (File.Exists s) then raise (UserError(sprintf "%s: no such file" s))
    let root = repoRoot ()
    let dir = workDir sources
    Directory.CreateDirectory dir |> ignore
    let proj = Path.Combine(dir, "KgenSources.fsproj")
    let text = projectText root sources
    if not (File.Exists proj) || File.ReadAllText proj <> text then File.WriteAllText(proj, text)
    let outDir = Path.Combine(dir, "out")
    let code, log = run "dotnet" (sprintf "build \"%s\" -nologo -v q -clp:NoSummary -o \"%s\"" proj outDir) dir
    if code <> 0 then
        // F# errors look like /path/File.fs(7,50): error FS0001: ... [project]
        let errors =
            log.Split('\n')
            |> Array.filter (fun l -> l.Contains ": error ")
            |> Array.map (fun l -> let i = l.LastIndexOf " [" in (if i > 0 then l.Substring(0, i) else l).Trim())
            |> Array.distinct
        let shown = if errors.Length > 0 then String.Join("\n", Kgen.Hints.annotate errors) else log
        raise (UserError(sprintf "F# compilation failed:\n%s" shown))
    Assembly.LoadFrom(Path.Combine(outDir, "KgenSources.dll"))
