// kgen-fsharp: the F# front door of kgen (tools/kgen-fsharp runs this).
//
//   kgen-fsharp build FILE.fs... -o DIR [--sig SIG]
//       compile the sources against TorchSharp 0.107 and Kgen, write DIR/NAME.json per source
//       (its quotation values and [<Kgen.Entry>] functions; --sig for entries without one)
// Exit status: 0 success, 1 bad input (an F# compile error with its position), 2 internal error.
module KgenFSharp.Program

open System
open System.IO
open Kgen

let usage () =
    eprintfn "usage: kgen-fsharp build FILE.fs... -o DIR [--sig SIG]"
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
        for f in files do
            let doc = Collect.documentOfSourceWith sg asm (Path.GetFullPath f)
            let dest = Path.Combine(dir, Path.GetFileNameWithoutExtension f + ".json")
            if not (File.Exists dest) || File.ReadAllText dest <> doc.Json then File.WriteAllText(dest, doc.Json)
        printfn "kgen-fsharp: %d document(s) in %s" files.Length dir
        0

[<EntryPoint>]
let main argv =
    try
        match List.ofArray argv with
        | "build" :: rest -> build rest
        | _ -> usage ()
    with
    | Build.UserError msg ->
        eprintfn "kgen-fsharp: %s" msg
        1
    | Serializer.SerializeError msg ->
        eprintfn "kgen-fsharp: %s" msg
        1
    | e ->
        eprintfn "kgen-fsharp: internal error: %s" (e.ToString())
        2
