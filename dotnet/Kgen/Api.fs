// Kgen.Kgen: the entry points an F# user calls (`open Kgen`, then `Kgen.check <@ f @> inputs`),
// and KgenFunction, the same fast path as an object for C# and other .NET languages.
namespace Kgen

open System
open System.Collections.Generic
open System.Runtime.InteropServices
open Microsoft.FSharp.Quotations
open TorchSharp
open Kgen.FastPath

/// A kgen entry as a callable object over TorchSharp tensors (for C#; F# code has
/// Kgen.compile). Load one from a kgen document (`kgen-fsharp build` writes them from F#
/// quotations) or make one from a quotation; Invoke runs it on the fast path (specialized once
/// per size pattern; CPU tensors on the emulator, CUDA tensors through NVRTC). Captured tensors
/// are given by name and read at each call. Calls on one object are serialized.
[<AllowNullLiteral>]
type KgenFunction private (engine: Engine) =
    let core = Compile.Core(engine, typeof<torch.Tensor>)
    static let kindsOf (json: string) (entry: string) =
        use ctx = new Runtime.Context()
        use m = ctx.Load json
        let entry = if isNull entry then List.head m.Entries else entry
        let kinds =
            m.Parameters entry
            |> List.map (function
                | None -> TensorParam
                | Some t -> ScalarParam t)
            |> Array.ofList
        entry, kinds
    /// An entry of a kgen document (entry null: its first), with its captured tensors by name.
    static member Load(json: string, [<Optional; DefaultParameterValue(null: string)>] entry: string,
                       [<Optional; DefaultParameterValue(null: IReadOnlyDictionary<string, torch.Tensor>)>] captures: IReadOnlyDictionary<string, torch.Tensor>) =
        let entry, kinds = kindsOf json entry
        let names, values =
            if isNull captures then [||], [||]
            else captures |> Seq.map (fun kv -> kv.Key, kv.Value) |> Array.ofSeq |> Array.unzip
        new KgenFunction(new Engine(json, entry, kinds, names, (fun () -> values), Options.Default))
    /// A quotation (F#), for code that wants the object form.
    static member Of(q: Expr) =
        Collect.requireReflected q
        let doc = Serializer.serialize [ { Name = "f"; Expr = q; Signature = None; NonZero = [||] } ]
        let _, kinds = kindsOf doc.Json "f"
        let caps = doc.Captures |> List.choose (fun c -> match c.Value with :? torch.Tensor as t -> Some(c.Name, t) | _ -> None)
        let values = caps |> List.map snd |> Array.ofList
        new KgenFunction(new Engine(doc.Json, "f", kinds, caps |> List.map fst |> Array.ofList, (fun () -> values), Options.Default))
    /// Runs on these arguments (tensors, or numbers for number parameters); all outputs.
    member _.Invoke([<ParamArray>] args: obj[]) : torch.Tensor[] =
        if args.Length <> engine.Kinds.Length then
            raise (Runtime.KgenException(sprintf "the entry takes %d argument(s), %d given" engine.Kinds.Length args.Length, 1))
        engine.Enter()
        try
            for i in 0 .. args.Length - 1 do core.SetObj(i, args.[i])
            core.Invoke()
            Array.init engine.OutputCount engine.Output
        finally
            engine.Exit()
    /// Runs an entry of one tensor output on tensors.
    member _.Call([<ParamArray>] args: torch.Tensor[]) : torch.Tensor =
        if args.Length <> engine.Kinds.Length then
            raise (Runtime.KgenException(sprintf "the entry takes %d argument(s), %d given" engine.Kinds.Length args.Length, 1))
        engine.Enter()
        try
            for i in 0 .. args.Length - 1 do engine.SetTensor(i, args.[i])
            core.Invoke()
            if engine.OutputCount <> 1 then
                raise (Runtime.KgenException(sprintf "the entry has %d outputs: use Invoke" engine.OutputCount, 1))
            engine.Output 0
        finally
            engine.Exit()
    /// How many input signatures were specialized so far.
    member _.Specializations = engine.Specializations
    /// Specializations, and kernel objects compiled or found in the kernel cache.
    member _.CompileStats = engine.Stats
    interface IDisposable with
        member _.Dispose() = (engine :> IDisposable).Dispose()

[<RequireQualifiedAccess>]
module Kgen =
    /// The three-way check of a quotation on your own inputs (tensors or numbers, in parameter
    /// order): kgen's kernels, the F# function run by TorchSharp, and kgen's TorchScript twin
    /// run by torch.jit, compared output by output (PyTorch's assert_close tolerances; the
    /// rmse-vs-fp64 rule where they fail). Prints a row per output; raises on a mismatch.
    let check (q: Expr) (inputs: obj list) : Check.Row list = Check.quotation q inputs

    /// Kgen.check with the gradients: also the gradients of Σ result · weight (random weights)
    /// with respect to every floating input and capture — kgen's backward kernels, TorchSharp's
    /// autograd of the F# function and the TorchScript twin's autograd — one row each.
    let checkGrad (q: Expr) (inputs: obj list) : Check.Row list = Check.quotationGrad q inputs true

    /// A quotation as a function of its own type over TorchSharp tensors (curried or tupled as
    /// the quotation is; results a tensor, a number or a tuple): kgen's kernels run each call,
    /// specialized once per input signature; captured tensors are read live at each call.
    let compile (q: Expr<'F>) : 'F = (new Compile.Compiled<'F>(q)).Function

    /// A module's forward (tensor to tensor) as a compiled function: the module is expanded as
    /// in a quotation that calls it (its parameters captured by name and read at each call).
    let compileModule (m: TorchSharp.torch.nn.Module<TorchSharp.torch.Tensor, TorchSharp.torch.Tensor>) : TorchSharp.torch.Tensor -> TorchSharp.torch.Tensor =
        let t = typeof<TorchSharp.torch.Tensor>
        let x = Var("x", t)
        let forward = m.GetType().GetMethod("forward", [| t |])
        let body = Expr.Call(Expr.ValueWithName(m, m.GetType(), "model"), forward, [ Expr.Var x ])
        compile (Expr.Cast<TorchSharp.torch.Tensor -> TorchSharp.torch.Tensor>(Expr.Lambda(x, body)))

/// Kgen's entry points that take a function by its name: F# quotes the argument, so
/// `Kgen.compileFn gate` is `Kgen.compile <@ gate @>` for a [<ReflectedDefinition>] function
/// (module functions cannot quote their arguments; this type's members can, and F# finds them
/// beside the Kgen module's functions).
[<AbstractClass; Sealed>]
type Kgen =
    /// A [<ReflectedDefinition>] function (`let gate (x: Tensor) (g: Tensor) = ...`), compiled:
    /// a function of its own type whose calls run kgen's kernels, as Kgen.compile <@ gate @>.
    static member compileFn([<ReflectedDefinition>] f: Expr<'F>) : 'F = (new Compile.Compiled<'F>(f)).Function
