// Kgen.Compile: a quotation as an ordinary F# function over TorchSharp tensors (issue 10's
// API, first part). `Kgen.compile <@ fun x b -> ... @>` serializes and loads the quotation
// once and returns a function of the quotation's own type (curried as it is; a tupled
// parameter list too), whose calls run kgen's kernels: the first call with a new input
// signature specializes (kg_specialize_for), later calls with the same signature reuse it.
// The signature key is what kgen may specialize on, taken conservatively: dtype, shape,
// strides and device of every tensor. Captured tensors (a module's parameters) are the live
// objects, read at each call, so a parameter updated in place is seen updated. Results are
// shaped as the quotation's result type: a tensor, a number (read from its 0-dim tensor), or
// a tuple of them.
module Kgen.Compile

open System
open System.Collections.Generic
open Microsoft.FSharp.Quotations
open Microsoft.FSharp.Reflection
open TorchSharp

type private Tensor = torch.Tensor

let private keyOf (ts: Tensor list) =
    let sb = Text.StringBuilder()
    for t in ts do
        sb.Append(int t.dtype).Append(':').Append(String.Join(",", t.shape)).Append(':')
          .Append(String.Join(",", t.stride())).Append(':').Append(int t.device_type).Append(t.device_index).Append('|') |> ignore
    sb.ToString()

let private toTensor (o: obj) : Tensor =
    match o with
    | :? Tensor as t -> t
    | :? float32 as v -> torch.tensor v
    | :? float as v -> torch.tensor v
    | :? int as v -> torch.tensor v
    | :? int64 as v -> torch.tensor v
    | :? bool as v -> torch.tensor v
    | null -> raise (Runtime.KgenException("an argument is null", 1))
    | o -> raise (Runtime.KgenException(sprintf "an argument of type %O is neither a tensor nor a number" (o.GetType()), 1))

/// Results shaped as the quotation's result type.
let rec private shape (ty: Type) (outs: Tensor list) : obj * Tensor list =
    if ty = typeof<Tensor> then box outs.Head, outs.Tail
    elif FSharpType.IsTuple ty then
        let items, rest =
            FSharpType.GetTupleElements ty
            |> Array.fold (fun (acc, os) et -> let v, os' = shape et os in (v :: acc, os')) ([], outs)
        FSharpValue.MakeTuple(items |> List.rev |> Array.ofList, ty), rest
    else
        let t = outs.Head.to_type(torch.ScalarType.Float64).item<float>()
        (if ty = typeof<bool> then box (t <> 0.0) else Convert.ChangeType(t, ty)), outs.Tail

/// A compiled quotation: its function, and how many times it specialized.
type Compiled<'F>(q: Expr<'F>) =
    let doc = Serializer.serialize [ { Name = "f"; Expr = q.Raw; Signature = None; NonZero = [||] } ]
    let ctx = new Runtime.Context()
    let m = ctx.Load doc.Json
    let cache = Dictionary<string, Runtime.Compiled>()
    let gate = obj ()
    let mutable specializations = 0
    let captures () =
        doc.Captures |> List.choose (fun c -> match c.Value with :? Tensor as t -> Some(c.Name, t) | _ -> None)
    let call (args: obj list) (resultType: Type) : obj =
        let tensors = args |> List.map toTensor
        let caps = captures ()
        let key = keyOf (tensors @ (caps |> List.map snd))
        let compiled =
            lock gate (fun () ->
                match cache.TryGetValue key with
                | true, c -> c
                | _ ->
                    let c = m.Specialize("f", tensors, caps)
                    specializations <- specializations + 1
                    cache.[key] <- c
                    c)
        let outs = compiled.Run(tensors, caps)
        fst (shape resultType outs)
    // the function value: one F# closure per curried parameter; a tupled parameter spreads
    let rec build (t: Type) (acc: obj list) : obj =
        if FSharpType.IsFunction t then
            let dom, rng = FSharpType.GetFunctionElements t
            FSharpValue.MakeFunction(t, fun a ->
                let items = if FSharpType.IsTuple dom then FSharpValue.GetTupleFields a |> List.ofArray else [ a ]
                build rng (List.rev items @ acc))
        else call (List.rev acc) t
    let fn = build typeof<'F> [] :?> 'F
    /// The quotation as a function of its own type.
    member _.Function = fn
    /// How many input signatures were specialized so far.
    member _.Specializations = specializations
    /// The kgen document the quotation serialized to.
    member _.Json = doc.Json
    interface IDisposable with
        member _.Dispose() =
            for c in cache.Values do (c :> IDisposable).Dispose()
            (m :> IDisposable).Dispose()
            (ctx :> IDisposable).Dispose()
