// Kgen.Package: offline kernel packages (.kgpkg, docs/package.md) from .NET. A package holds
// an entry's launch plan and every kernel variant it can run (cubins per GPU arch, PTX, the CUDA
// C the emulator compiles), so an application ships its model's kernels and calls them with no
// quotation, no F# serializer and — on CUDA — no NVRTC:
//
//   use pkg = Kgen.Package.Load "model.kgpkg"
//   let biasGelu : torch.Tensor -> torch.Tensor -> torch.Tensor = pkg.Function "bias_gelu"
//   let y = biasGelu x b
//
// A function is the same as Kgen.compile gives (FastPath's engine: curried or tupled as its type
// says, parameters tensors or numbers, results a tensor, a number or a tuple), over the entry of
// the package: each new size pattern picks the packaged signature it fits (an error naming them
// when none does). Package.Write makes one from kgen documents (what `kgen package` and
// `tools/kgen-fsharp package` do).
namespace Kgen

#nowarn "9"

open System
open System.Collections.Generic
open System.Runtime.InteropServices
open System.Text
open Microsoft.FSharp.NativeInterop
open TorchSharp
open Kgen.Native

/// One entry and signature of a kgen document for Package.Write (Entry None: every entry of
/// it; Signature None: the document's own).
type PackageItem = { Json: string; Entry: string option; Signature: string option }

/// An offline kernel package, loaded: its entries as typed functions.
[<AllowNullLiteral>]
type Package private (path: string, options: FastPath.Options) =
    let ctx = new Runtime.Context()
    let m = ctx.LoadPackage path
    let engines = List<IDisposable>()
    let gate = obj ()

    /// Loads a package (a located error when the file is not a package, is damaged, or was
    /// written by a kgen of another format or ABI).
    static member Load(path: string) = new Package(IO.Path.GetFullPath path, FastPath.Options.Default)
    /// The same with engine options (the kernel cache folder, the null device).
    static member Load(path: string, options: FastPath.Options) = new Package(IO.Path.GetFullPath path, options)

    member _.Path = path
    /// The packaged entries.
    member _.Entries : string list = m.Entries
    /// What it holds, per entry, signature and arch (`kgen explain PACKAGE`).
    member _.Describe(?entry: string) : string =
        lock gate (fun () ->
            let name = match entry with Some e -> Encoding.UTF8.GetBytes(e + "\000") | None -> null
            let mutable text = 0n
            let st =
                use p = fixed name
                Lib.kg_package_describe(m.Handle.DangerousGetHandle(), (if isNull name then NativePtr.nullPtr else p), &text)
            if st <> 0 then
                let e = Marshal.PtrToStringUTF8(NativePtr.toNativeInt (Lib.kg_last_error(ctx.Handle.DangerousGetHandle())))
                raise (Runtime.KgenException(e.TrimEnd(), st))
            let s = Marshal.PtrToStringUTF8 text
            NativeMemory.Free(NativePtr.toVoidPtr (NativePtr.ofNativeInt<byte> text))
            s)

    /// An entry as a function of type 'F (as Kgen.compile gives), its captured tensors by name.
    member _.Function<'F>(entry: string, captures: IReadOnlyDictionary<string, torch.Tensor>) : 'F =
        let kinds = Compile.kindsOfType typeof<'F>
        let ps = m.Parameters entry
        if ps.Length <> kinds.Length then
            raise (Runtime.KgenException(sprintf "entry '%s' of %s takes %d parameter(s); the function type %O has %d" entry path ps.Length typeof<'F> kinds.Length, 1))
        List.iteri
            (fun i (p: torch.ScalarType option) ->
                match p, kinds.[i] with
                | None, FastPath.TensorParam -> ()
                | Some t, FastPath.ScalarParam u when t = u -> ()
                | p, k ->
                    raise (Runtime.KgenException(sprintf "entry '%s' parameter %d is %s; the function type %O gives %A" entry (i + 1)
                                                         (match p with None -> "a tensor" | Some t -> sprintf "a %O number" t) typeof<'F> k, 1)))
            ps
        let names, values =
            if isNull captures then [||], [||]
            else captures |> Seq.map (fun kv -> kv.Key, kv.Value) |> Array.ofSeq |> Array.unzip
        let engine = new FastPath.Engine("", entry, kinds, names, (fun () -> values), { options with Package = Some path })
        lock gate (fun () -> engines.Add engine)
        Compile.functionOfEngine<'F> engine
    /// An entry without captured tensors as a function of type 'F.
    member this.Function<'F>(entry: string) : 'F = this.Function<'F>(entry, null)

    /// Writes a package of these documents' entries (archs: compute capabilities such as 80,
    /// 86, 89, 90 — cubins need NVRTC here; none: a package for the CPU emulator only). The
    /// same items give a byte-identical file.
    static member Write(path: string, items: PackageItem list, archs: int list) =
        use c = new Runtime.Context()
        // one module per distinct document: several items of one document are its signatures
        let loaded = Dictionary<string, Runtime.Module>()
        let modOf (json: string) =
            match loaded.TryGetValue json with
            | true, m -> m
            | _ ->
                let m = c.Load json
                loaded.[json] <- m
                m
        let itemMods = items |> List.map (fun it -> modOf it.Json)
        try
            let strings = List<nativeint>()
            let utf8 (s: string option) =
                match s with
                | None -> NativePtr.nullPtr<byte>
                | Some s ->
                    let p = Marshal.StringToCoTaskMemUTF8 s
                    strings.Add p
                    NativePtr.ofNativeInt<byte> p
            try
                let native =
                    List.map2 (fun (it: PackageItem) (md: Runtime.Module) ->
                        let mutable x = KgPackageItem()
                        x.Module <- md.Handle.DangerousGetHandle()
                        x.Entry <- utf8 it.Entry
                        x.Sig <- utf8 it.Signature
                        x) items itemMods
                    |> Array.ofList
                let a = Array.ofList archs
                let p = Encoding.UTF8.GetBytes(IO.Path.GetFullPath path + "\000")
                use pi = fixed native
                use pa = fixed a
                use pp = fixed p
                c.Check(Lib.kg_package_write(c.Handle.DangerousGetHandle(), pi, native.Length, (if a.Length = 0 then NativePtr.nullPtr else pa), a.Length, pp))
            finally
                for p in strings do Marshal.FreeCoTaskMem p
        finally
            for md in loaded.Values do (md :> IDisposable).Dispose()

    interface IDisposable with
        member _.Dispose() =
            lock gate (fun () ->
                for e in engines do e.Dispose()
                engines.Clear())
            (m :> IDisposable).Dispose()
            (ctx :> IDisposable).Dispose()
