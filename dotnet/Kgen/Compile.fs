// Kgen.Compile: a quotation as an ordinary F# function over TorchSharp tensors (issue 10).
// `Kgen.compile <@ fun x b -> ... @>` serializes and loads the quotation once and returns a
// function of the quotation's own type — curried as it is (or tupled), its parameters tensors
// or numbers, its result a tensor, a number or a tuple of them. Each call goes through the
// engine's hot path (FastPath.fs): metadata read from LibTorchSharp, a signature key compared
// with the few specialized so far, outputs allocated by TorchSharp, kg_run. The first call
// with a new signature (dtypes, ranks, which dims are 0, 1 or equal: sizes are symbolic)
// specializes. Curried functions of up to four parameters are closures of F#'s optimized
// kind (OptimizedClosures.FSharpFunc), so `f x b` makes no partial application and boxes
// nothing; other shapes go through reflection.
// Captured tensors (a module's parameters) are the live objects, read at each call.
module Kgen.Compile

open System
open Microsoft.FSharp.Quotations
open Microsoft.FSharp.Reflection
open TorchSharp
open Kgen.FastPath

type private Tensor = torch.Tensor

/// The kind of a parameter from its F# type.
let private kindOf (t: Type) =
    if t = typeof<Tensor> || t.IsSubclassOf typeof<Tensor> then TensorParam
    elif t = typeof<float32> then ScalarParam torch.ScalarType.Float32
    elif t = typeof<float> then ScalarParam torch.ScalarType.Float64
    elif t = typeof<int> then ScalarParam torch.ScalarType.Int32
    elif t = typeof<int64> then ScalarParam torch.ScalarType.Int64
    elif t = typeof<bool> then ScalarParam torch.ScalarType.Bool
    else raise (Runtime.KgenException(sprintf "a parameter of type %O: kgen takes tensors, float32, float, int, int64 and bool" t, 1))

/// The parameters of a function type: per curried parameter, its flattened types.
let private paramsOf (t: Type) : Type list list = Check.paramGroups t |> List.map snd

let rec private resultOf (t: Type) = if FSharpType.IsFunction t then resultOf (snd (FSharpType.GetFunctionElements t)) else t

/// Reads the engine's outputs as a value of the result type.
let rec private shapeResult (ty: Type) (e: Engine) (next: int byref) : obj =
    if ty = typeof<Tensor> then
        let o = e.Output next
        next <- next + 1
        box o
    elif FSharpType.IsTuple ty then
        let els = FSharpType.GetTupleElements ty
        let items = Array.zeroCreate els.Length
        for i in 0 .. els.Length - 1 do items.[i] <- shapeResult els.[i] e &next
        FSharpValue.MakeTuple(items, ty)
    else
        let t = e.Output next
        next <- next + 1
        let v = t.to_type(torch.ScalarType.Float64).item<float>()
        if ty = typeof<bool> then box (v <> 0.0) else Convert.ChangeType(v, ty)

/// What the typed closures call: argument setters and the result reader of one engine.
[<AllowNullLiteral>]
type Core(engine: Engine, result: Type) =
    member _.Engine = engine
    member _.Set<'T>(i: int, a: 'T) =
        if typeof<'T> = typeof<Tensor> then engine.SetTensor(i, unbox<Tensor> (box a))
        elif typeof<'T> = typeof<float32> then engine.SetScalar(i, float (unbox<float32> (box a)))
        elif typeof<'T> = typeof<float> then engine.SetScalar(i, unbox<float> (box a))
        elif typeof<'T> = typeof<int> then engine.SetScalar(i, float (unbox<int> (box a)))
        elif typeof<'T> = typeof<int64> then engine.SetInt64(i, unbox<int64> (box a))
        elif typeof<'T> = typeof<bool> then engine.SetScalar(i, (if unbox<bool> (box a) then 1.0 else 0.0))
        else
            match box a with
            | :? Tensor as t -> engine.SetTensor(i, t)
            | o -> raise (Runtime.KgenException(sprintf "argument %d of type %O is neither a tensor nor a number" (i + 1) (if isNull o then null else o.GetType()), 1))
    member _.SetObj(i: int, a: obj) =
        match a with
        | :? Tensor as t -> engine.SetTensor(i, t)
        | :? float32 as v -> engine.SetScalar(i, float v)
        | :? float as v -> engine.SetScalar(i, v)
        | :? int as v -> engine.SetScalar(i, float v)
        | :? int64 as v -> engine.SetInt64(i, v)
        | :? bool as v -> engine.SetScalar(i, (if v then 1.0 else 0.0))
        | null -> raise (Runtime.KgenException(sprintf "argument %d is null" (i + 1), 1))
        | o -> raise (Runtime.KgenException(sprintf "argument %d of type %O is neither a tensor nor a number" (i + 1) (o.GetType()), 1))
    /// Runs the call: through TorchSharp's autograd (Autograd.fs) when grad mode is on and a
    /// tensor argument or capture requires grad, else the plain fast path.
    member _.Invoke() =
        if engine.WantsGrad() then Autograd.invoke engine else engine.Invoke()
    member this.Result<'R>() : 'R =
        this.Invoke()
        if typeof<'R> = typeof<Tensor> then unbox<'R> (box (engine.Output 0))
        else
            let mutable next = 0
            unbox<'R> (shapeResult result engine &next)

type private Fn1<'A, 'R>(c: Core) =
    inherit FSharpFunc<'A, 'R>()
    override _.Invoke(a: 'A) =
        c.Engine.Enter()
        try
            c.Set(0, a)
            c.Result<'R>()
        finally
            c.Engine.Exit()

type private Fn2<'A, 'B, 'R>(c: Core) =
    inherit OptimizedClosures.FSharpFunc<'A, 'B, 'R>()
    override this.Invoke(a: 'A) : 'B -> 'R = fun b -> this.Invoke(a, b)
    override _.Invoke(a: 'A, b: 'B) =
        c.Engine.Enter()
        try
            c.Set(0, a)
            c.Set(1, b)
            c.Result<'R>()
        finally
            c.Engine.Exit()

type private Fn3<'A, 'B, 'C, 'R>(c: Core) =
    inherit OptimizedClosures.FSharpFunc<'A, 'B, 'C, 'R>()
    override this.Invoke(a: 'A) : 'B -> 'C -> 'R = fun b cc -> this.Invoke(a, b, cc)
    override _.Invoke(a: 'A, b: 'B, cc: 'C) =
        c.Engine.Enter()
        try
            c.Set(0, a)
            c.Set(1, b)
            c.Set(2, cc)
            c.Result<'R>()
        finally
            c.Engine.Exit()

type private Fn4<'A, 'B, 'C, 'D, 'R>(c: Core) =
    inherit OptimizedClosures.FSharpFunc<'A, 'B, 'C, 'D, 'R>()
    override this.Invoke(a: 'A) : 'B -> 'C -> 'D -> 'R = fun b cc d -> this.Invoke(a, b, cc, d)
    override _.Invoke(a: 'A, b: 'B, cc: 'C, d: 'D) =
        c.Engine.Enter()
        try
            c.Set(0, a)
            c.Set(1, b)
            c.Set(2, cc)
            c.Set(3, d)
            c.Result<'R>()
        finally
            c.Engine.Exit()

/// The function value of type `t` over the engine: typed closures for curried parameters of
/// up to four (none tupled), else closures made by reflection.
let private functionOf (t: Type) (core: Core) (ps: Type list list) : obj =
    let simple = ps |> List.forall (fun p -> p.Length = 1) && ps.Length >= 1 && ps.Length <= 4
    if simple then
        let doms = ps |> List.map List.head
        let res = resultOf t
        let def =
            match ps.Length with
            | 1 -> typedefof<Fn1<_, _>>
            | 2 -> typedefof<Fn2<_, _, _>>
            | 3 -> typedefof<Fn3<_, _, _, _>>
            | _ -> typedefof<Fn4<_, _, _, _, _>>
        let ty = def.MakeGenericType(Array.ofList (doms @ [ res ]))
        Activator.CreateInstance(ty, [| box core |])
    else
        let res = resultOf t
        let call (args: obj list) =
            let e = core.Engine
            e.Enter()
            try
                args |> List.iteri (fun i a -> core.SetObj(i, a))
                core.Invoke()
                let mutable next = 0
                shapeResult res e &next
            finally
                e.Exit()
        let rec build (t: Type) (acc: obj list) : obj =
            if FSharpType.IsFunction t then
                let dom, rng = FSharpType.GetFunctionElements t
                FSharpValue.MakeFunction(t, fun a ->
                    let items =
                        if FSharpType.IsTuple dom then FSharpValue.GetTupleFields a |> List.ofArray
                        elif dom = typeof<unit> then []
                        else [ a ]
                    build rng (List.rev items @ acc))
            else call (List.rev acc)
        if ps.IsEmpty then raise (Runtime.KgenException("the quotation is not a function: kgen compiles functions of tensors", 1))
        build t []

/// The kinds of the parameters of a function type (what an engine takes).
let kindsOfType (t: Type) : ParamKind[] = paramsOf t |> List.concat |> List.map kindOf |> Array.ofList

/// A function of type 'F over an engine (an entry of an offline kernel package: Kgen.Package).
let functionOfEngine<'F> (engine: Engine) : 'F = functionOf typeof<'F> (Core(engine, resultOf typeof<'F>)) (paramsOf typeof<'F>) :?> 'F

/// A compiled quotation: its function, what it compiled, its profile.
type Compiled<'F>(q: Expr<'F>, options: Options) =
    do Collect.requireReflected q.Raw // <@ gate @> of a function F# kept no body for
    let doc = Serializer.serialize [ { Name = "f"; Expr = q.Raw; Signature = None; NonZero = [||] } ]
    let ps = paramsOf typeof<'F>
    let kinds = ps |> List.concat |> List.map kindOf |> Array.ofList
    let caps = doc.Captures |> List.choose (fun c -> match c.Value with :? Tensor as t -> Some(c.Name, t) | _ -> None)
    let capNames = caps |> List.map fst |> Array.ofList
    let capValues = caps |> List.map snd |> Array.ofList
    let engine = new Engine(doc.Json, "f", kinds, capNames, (fun () -> capValues), options)
    let core = Core(engine, resultOf typeof<'F>)
    let fn = functionOf typeof<'F> core ps :?> 'F
    new(q: Expr<'F>) = new Compiled<'F>(q, Options.Default)
    /// The quotation as a function of its own type.
    member _.Function = fn
    /// How many input signatures were specialized so far.
    member _.Specializations = engine.Specializations
    /// Specializations, and kernel objects compiled or found in the kernel cache.
    member _.CompileStats = engine.Stats
    /// The kgen document the quotation serialized to.
    member _.Json = doc.Json
    /// The engine (profiling, run statistics).
    member _.Engine = engine
    interface IDisposable with
        member _.Dispose() = (engine :> IDisposable).Dispose()
