// Kgen.Eval: runs a quotation the way F# would run the code it quotes (the eager side of the
// three-way check: the F# function itself executed by TorchSharp, op by op).
//
// FSharp.Core's LeafExpressionConverter cannot run loops or mutation, which kgen's entries
// have, so this is a small interpreter over the Patterns cases: variables in ref cells
// (closures see assignments), lambdas as real F# function values (so Kgen.Ops.map and
// TorchSharp get ordinary delegates), calls by reflection, and SRTP operators through their
// witnesses (CallWithWitnesses' method that takes them) exactly as the compiled code would.
// [<ReflectedDefinition>] callees run as compiled code.
module Kgen.Eval

open System
open System.Reflection
open Microsoft.FSharp.Quotations
open Microsoft.FSharp.Quotations.Patterns
open Microsoft.FSharp.Reflection

/// A construct the interpreter cannot run.
exception EvalError of string

type private Env = Map<Var, obj ref>

let private unwrap (f: unit -> obj) =
    try f ()
    with :? TargetInvocationException as t when not (isNull t.InnerException) ->
        Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(t.InnerException).Throw()
        null

let private invokeMethod (m: MethodInfo) (target: obj) (args: obj[]) = unwrap (fun () -> m.Invoke(target, args))

/// Apply an F# function value to one argument.
let apply (f: obj) (arg: obj) : obj =
    let rec fsFunc (t: Type) =
        if isNull t then raise (EvalError(sprintf "%O is not an F# function" (f.GetType())))
        elif t.IsGenericType && t.GetGenericTypeDefinition() = typedefof<FSharpFunc<_, _>> then t
        else fsFunc t.BaseType
    invokeMethod ((fsFunc (f.GetType())).GetMethod "Invoke") f [| arg |]

let rec private eval (env: Env) (e: Expr) : obj =
    match e with
    | ValueWithName(v, _, _) -> v
    | Value(v, _) -> v
    | Var v ->
        match env.TryFind v with
        | Some r -> r.Value
        | None -> raise (EvalError(sprintf "variable '%s' is not bound" v.Name))
    | Let(v, value, body) -> eval (env.Add(v, ref (eval env value))) body
    | Lambda(v, body) ->
        FSharpValue.MakeFunction(e.Type, fun arg -> eval (env.Add(v, ref arg)) body)
    | Application(f, a) ->
        let fv = eval env f
        apply fv (eval env a)
    | IfThenElse(c, a, b) -> if unbox<bool> (eval env c) then eval env a else eval env b
    | Sequential(a, b) ->
        eval env a |> ignore
        eval env b
    | VarSet(v, value) ->
        env.[v].Value <- eval env value
        box ()
    | ForIntegerRangeLoop(v, s, en, body) ->
        let s = unbox<int> (eval env s)
        let en = unbox<int> (eval env en)
        for i in s..en do
            eval (env.Add(v, ref (box i))) body |> ignore
        box ()
    | WhileLoop(c, body) ->
        while unbox<bool> (eval env c) do
            eval env body |> ignore
        box ()
    | CallWithWitnesses(obj, _, mw, witnesses, args) ->
        let target = obj |> Option.map (eval env) |> Option.toObj
        let vals = (witnesses @ args) |> List.map (eval env) |> Array.ofList
        invokeMethod mw target vals
    | Call(obj, m, args) ->
        let target = obj |> Option.map (eval env) |> Option.toObj
        invokeMethod m target (args |> List.map (eval env) |> Array.ofList)
    | PropertyGet(obj, p, args) ->
        let target = obj |> Option.map (eval env) |> Option.toObj
        unwrap (fun () -> p.GetValue(target, args |> List.map (eval env) |> Array.ofList))
    | PropertySet(obj, p, args, value) ->
        let target = obj |> Option.map (eval env) |> Option.toObj
        unwrap (fun () -> p.SetValue(target, eval env value, args |> List.map (eval env) |> Array.ofList); null)
        |> ignore
        box ()
    | FieldGet(obj, f) -> f.GetValue(obj |> Option.map (eval env) |> Option.toObj)
    | FieldSet(obj, f, value) ->
        f.SetValue(obj |> Option.map (eval env) |> Option.toObj, eval env value)
        box ()
    | NewTuple items -> FSharpValue.MakeTuple(items |> List.map (eval env) |> Array.ofList, e.Type)
    | TupleGet(t, i) -> FSharpValue.GetTupleField(eval env t, i)
    | NewArray(t, items) ->
        let a = Array.CreateInstance(t, items.Length)
        items |> List.iteri (fun i x -> a.SetValue(eval env x, i))
        box a
    | NewObject(ctor, args) -> unwrap (fun () -> ctor.Invoke(args |> List.map (eval env) |> Array.ofList))
    | Coerce(x, _) -> eval env x
    | DefaultValue t -> if t.IsValueType then Activator.CreateInstance t else null
    | TypeTest(x, t) -> box (t.IsInstanceOfType(eval env x))
    | TryFinally(body, fin) ->
        try eval env body
        finally eval env fin |> ignore
    | NewRecord(t, args) -> FSharpValue.MakeRecord(t, args |> List.map (eval env) |> Array.ofList, true)
    | NewUnionCase(uc, args) -> FSharpValue.MakeUnion(uc, args |> List.map (eval env) |> Array.ofList, true)
    | UnionCaseTest(x, uc) ->
        let v = eval env x
        let tag, _ = FSharpValue.GetUnionFields(v, uc.DeclaringType, true)
        box (tag.Tag = uc.Tag)
    | QuoteTyped x
    | QuoteRaw x -> box x
    | _ -> raise (EvalError(sprintf "cannot run the F# construct %A" e))

/// Run a closed quotation (normally a chain of lambdas: the result is an F# function value).
let run (e: Expr) : obj = eval Map.empty e

/// Apply a curried F# function value to arguments, one at a time.
let applyAll (f: obj) (args: obj list) = args |> List.fold apply f
