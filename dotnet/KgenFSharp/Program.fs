// kgen-fsharp: the F# front door of kgen (tools/kgen-fsharp runs this).
//
//   kgen-fsharp build FILE.fs... -o DIR [--sig SIG]
//       compile the sources against TorchSharp 0.107 and Kgen, write DIR/NAME.json per source
//       (its quotation values and [<Kgen.Entry>] functions; --sig for entries without one)
//   kgen-fsharp check FILE.fs [--entry NAME] [--sig SIG] [--seed N] [--size SYM=N] [--grad]
//       the three-way check of each entry on random inputs: kgen's kernels (emulator), the F#
//       function run by TorchSharp, kgen's TorchScript twin run by torch.jit; one row per output
//       (--entry may name any [<ReflectedDefinition>] function, with --sig its signature);
//       --grad: and per floating input and capture its gradient (kgen's backward kernels,
//       TorchSharp's autograd, the twin's autograd)
//   kgen-fsharp package FILE.fs... -o OUT.kgpkg [--sig SIG] [--arch sm_80,sm_86,sm_89,sm_90|none]
//       an offline kernel package (docs/package.md) of every entry of the sources: their kernels
//       for each arch (cubins; NVRTC needed here, never where it runs), PTX, the emulator's C
// Exit status: 0 success, 1 bad input (an F# compile error with its position), 2 internal error.
module KgenFSharp.Program

open System
open System.IO
open Kgen

let usage () =
    eprintfn "usage: kgen-fsharp build FILE.fs... -o DIR [--sig SIG]"
    eprintfn "       kgen-fsharp check FILE.fs [--entry NAME] [--sig SIG] [--seed N] [--size SYM=N] [--grad]"
    eprintfn "       kgen-fsharp package FILE.fs... -o OUT.kgpkg [--sig SIG] [--arch sm_80,sm_86,sm_89,sm_90|none]"
    1

let build (args: string list) =
    let rec parse files out sg =
        function
        | "-o" :: d :: rest -> parse files (Some d) sg rest
        | "--sig" :: s :: rest -> parse files out (Some s) rest
        | f :: rest when not (f.StartsWith "-") -> parse (f :: files) out sg rest
        | a :: _ -> raise (Build.UserError(sprintf "build: unknown option '%s'" a))
        | [] -> List.rev files, out, sg
    let files, out, sg = parse [] None None args
    match files, out with
    | [], _ | _, None -> usage ()
    | files, Some dir ->
        let asm = Build.compile files
        Directory.CreateDirectory dir |> ignore
        // like a compiler: a file that cannot be serialized is reported, the others written
        let mutable failed = 0
        for f in files do
            try
                let doc = Collect.documentOfSourceWith sg asm (Path.GetFullPath f)
                let dest = Path.Combine(dir, Path.GetFileNameWithoutExtension f + ".json")
                if not (File.Exists dest) || File.ReadAllText dest <> doc.Json then File.WriteAllText(dest, doc.Json)
            with Serializer.SerializeError msg ->
                eprintfn "kgen-fsharp: %s: %s" f msg
                failed <- failed + 1
        printfn "kgen-fsharp: %d document(s) in %s" (files.Length - failed) dir
        if failed > 0 then 1 else 0

let check (args: string list) =
    let grad = List.contains "--grad" args
    let args = args |> List.filter (fun a -> a <> "--grad")
    let rec parse file entry sg seed sizes =
        function
        | "--entry" :: e :: rest -> parse file (Some e) sg seed sizes rest
        | "--sig" :: x :: rest -> parse file entry (Some x) seed sizes rest
        | "--seed" :: n :: rest -> parse file entry sg (uint64 n) sizes rest
        | "--size" :: kv :: rest ->
            match kv.Split('=') with
            | [| k; v |] -> parse file entry sg seed (Map.add k (int64 v) sizes) rest
            | _ -> raise (Build.UserError(sprintf "check: --size wants SYM=N, not '%s'" kv))
        | f :: rest when not (f.StartsWith "-") -> parse (f :: file) entry sg seed sizes rest
        | a :: _ -> raise (Build.UserError(sprintf "check: unexpected argument '%s'" a))
        | [] -> file, entry, sg, seed, sizes
    match parse [] None None 0UL Map.empty args with
    | [], _, _, _, _ -> usage ()
    | files, entry, sg, seed, sizes ->
        let files = List.rev files
        let asm = Build.compile files
        use ctx = new Runtime.Context()
        let mutable ok = true
        let mutable n = 0
        let failed = Collections.Generic.List<string>()
        for file in files do
            let path = Path.GetFullPath file
            use g = new TorchSharp.torch.Generator(seed + 104729UL, TorchSharp.torch.CPU)
            let make (dt: string) (shape: int64[]) = Check.randomTensor g dt shape false
            let entries = Collect.entriesOfSourceNamed make sg entry asm path
            if entries.IsEmpty then
                let named = match entry with Some e -> sprintf ", and no function '%s'" e | None -> ""
                raise (Build.UserError(sprintf "%s: no entries (quotation values or [<Kgen.Entry>] functions)%s" file named))
            match entry with
            | Some e when not (entries |> List.exists (fun x -> x.Name = e)) ->
                raise (Build.UserError(sprintf "%s: no entry and no [<ReflectedDefinition>] function '%s' (entries: %s)" file e (entries |> List.map (fun x -> x.Name) |> String.concat ", ")))
            | _ -> ()
            let results =
                try Check.entriesGrad ctx entries entry sizes seed grad
                with :? Runtime.KgenException as e when files.Length > 1 ->
                    eprintfn "%s: %s" file e.Message
                    ok <- false
                    failed.Add file
                    []
            for (name, rows) in results do
                n <- n + 1
                printfn "kgen-fsharp check %s: entry %s, seed %d (kgen on the emulator | TorchScript via torch.jit; both against the F# function run by TorchSharp)" file name seed
                for r in rows do
                    printfn "%s" (Check.format r)
                    if not (r.Kgen.Ok && r.TorchScript.Ok) then
                        ok <- false
                        failed.Add(sprintf "%s (%s out%d)" file name r.Index)
        if files.Length > 1 then
            printfn "%d entries checked, %d mismatch(es)%s" n failed.Count (if failed.Count > 0 then ": " + String.concat ", " failed else "")
        if ok then 0 else 2

let package (args: string list) =
    let rec parse files out sg arch =
        function
        | "-o" :: d :: rest -> parse files (Some d) sg arch rest
        | "--sig" :: s :: rest -> parse files out (Some s) arch rest
        | "--arch" :: a :: rest -> parse files out sg a rest
        | f :: rest when not (f.StartsWith "-") -> parse (f :: files) out sg arch rest
        | a :: _ -> raise (Build.UserError(sprintf "package: unknown option '%s'" a))
        | [] -> List.rev files, out, sg, arch
    match parse [] None None "sm_80,sm_86,sm_89,sm_90" args with
    | [], _, _, _ | _, None, _, _ -> usage ()
    | files, Some out, sg, arch ->
        let archs =
            if arch = "none" then []
            else
                arch.Split(',')
                |> Array.map (fun a ->
                    match Int32.TryParse(a.Replace("sm_", "")) with
                    | true, v -> v
                    | _ -> raise (Build.UserError(sprintf "package: bad --arch '%s'" a)))
                |> Array.sort
                |> List.ofArray
        let asm = Build.compile files
        let items =
            files |> List.map (fun f -> { Json = (Collect.documentOfSourceWith sg asm (Path.GetFullPath f)).Json; Entry = None; Signature = None })
        Package.Write(out, items, archs)
        use pkg = Package.Load out
        printf "%s" (pkg.Describe())
        0

[<EntryPoint>]
let main argv =
    try
        match List.ofArray argv with
        | "build" :: rest -> build rest
        | "check" :: rest -> check rest
        | "package" :: rest -> package rest
        | _ -> usage ()
    with
    | Build.UserError msg ->
        eprintfn "kgen-fsharp: %s" msg
        1
    | Serializer.SerializeError msg ->
        eprintfn "kgen-fsharp: %s" msg
        1
    | :? Runtime.KgenException as e ->
        eprintfn "%s" e.Message
        e.Status
    | e ->
        eprintfn "kgen-fsharp: internal error: %s" (e.ToString())
        2
