// Kgen.Collect: the entries of a compiled F# module, for `kgen-fsharp build`.
//
// An entry is (docs/fsharp.md "Entries"):
//   - a module-level quotation value (`let f = <@ fun ... @>`: a static property of type Expr);
//   - a `[<ReflectedDefinition>]` function marked `[<Kgen.Entry>]` (its reflected body);
//   - a function returning a quotation, marked `[<Kgen.Entry("...")>]` whose parameters are
//     captures of the signature (`w=float32[768]`): it is called with tensors of those dtypes
//     and shapes, so its captured tensors arrive as named inputs;
//   - a `[<ReflectedDefinition>]` function not marked, when it is named as the entry with a
//     signature (`kgen-fsharp check Model.fs --entry gate --sig "float32[5,7], float32[5,7]"`).
// A reflected function's signature is checked against its parameters (count, tensor or number).
// Entries keep the module's declaration order; nested modules follow their parent's entries.
module Kgen.Collect

open System
open System.Reflection
open Microsoft.FSharp.Core
open Microsoft.FSharp.Quotations
open Microsoft.FSharp.Quotations.Patterns
open Microsoft.FSharp.Reflection
open TorchSharp

let private flags =
    BindingFlags.Public ||| BindingFlags.NonPublic ||| BindingFlags.Static ||| BindingFlags.DeclaredOnly

let private isModule (t: Type) =
    t.GetCustomAttributes(typeof<CompilationMappingAttribute>, false)
    |> Seq.cast<CompilationMappingAttribute>
    |> Seq.exists (fun a -> a.SourceConstructFlags &&& SourceConstructFlags.KindMask = SourceConstructFlags.Module)

let private fail fmt = Printf.kprintf (fun s -> raise (Serializer.SerializeError s)) fmt

let private entryAttr (m: MemberInfo) =
    m.GetCustomAttributes(typeof<EntryAttribute>, false) |> Seq.cast<EntryAttribute> |> Seq.tryHead

/// A dtype name of kgen's signatures (PyTorch's: "float32", "bfloat16", ...) as a ScalarType.
let dtypeOf (name: string) =
    match name with
    | "bool" -> torch.ScalarType.Bool
    | "uint8" -> torch.ScalarType.Byte
    | "int8" -> torch.ScalarType.Int8
    | "int16" -> torch.ScalarType.Int16
    | "int32" -> torch.ScalarType.Int32
    | "int64" -> torch.ScalarType.Int64
    | "float16" -> torch.ScalarType.Float16
    | "bfloat16" -> torch.ScalarType.BFloat16
    | "float32" -> torch.ScalarType.Float32
    | "float64" -> torch.ScalarType.Float64
    | d -> invalidArg "dtype" (sprintf "unknown dtype %s" d)

let private asExpr (o: obj) =
    match o with
    | :? Expr as e -> e
    | null -> invalidOp "a quotation value is null"
    | o -> invalidOp (sprintf "not a quotation: %O" (o.GetType()))

let private entryOf name (e: Expr) (a: EntryAttribute option) : Serializer.Entry =
    { Name = name
      Expr = e
      Signature = a |> Option.bind (fun a -> Option.ofObj a.Signature)
      NonZero = a |> Option.map (fun a -> a.NonZero) |> Option.defaultValue [||] }

// ---------------------------------------------------------------------------------------
// [<ReflectedDefinition>] functions as entries
// ---------------------------------------------------------------------------------------

let private isTensorType (t: Type) = typeof<torch.Tensor>.IsAssignableFrom t

/// A number parameter's dtype in a signature (float32, int64, ...), or None.
let private numberDtype (t: Type) =
    [ typeof<float32>, "float32"; typeof<float>, "float64"; typeof<int>, "int32"; typeof<int64>, "int64"
      typeof<int16>, "int16"; typeof<sbyte>, "int8"; typeof<byte>, "uint8"; typeof<bool>, "bool" ]
    |> List.tryPick (fun (ty, n) -> if ty = t then Some n else None)

/// What kgen sees of a compiled function's parameters: each one's name and type (a tuple-typed
/// parameter item by item; a unit one none).
let private paramItems (mi: MethodInfo) =
    mi.GetParameters()
    |> List.ofArray
    |> List.collect (fun p ->
        let t = p.ParameterType
        if t = typeof<unit> then []
        elif FSharpType.IsTuple t then
            FSharpType.GetTupleElements t |> List.ofArray |> List.mapi (fun i et -> sprintf "%s.Item%d" p.Name (i + 1), et)
        else [ p.Name, t ])

let private showParams (mi: MethodInfo) =
    match paramItems mi with
    | [] -> "none"
    | ps -> ps |> List.map (fun (n, t) -> sprintf "%s: %s" n (if isTensorType t then "Tensor" else t.Name)) |> String.concat ", "

/// A compact signature fits a reflected function's parameters: as many items (captures
/// `name=...` aside), a tensor item for each Tensor, a bare dtype for each number.
let checkSignatureFits (name: string) (mi: MethodInfo) (signature: string) =
    let ps = paramItems mi
    let items = Serializer.signatureParams signature
    if ps.Length <> items.Length then
        fail "%s takes %d parameter(s) (%s), but the signature \"%s\" describes %d" name ps.Length (showParams mi) signature items.Length
    List.zip ps items
    |> List.iteri (fun i ((pn, pt), (text, isTensor)) ->
        match isTensorType pt, numberDtype pt with
        | false, None -> fail "parameter '%s' of %s has type %O: an entry's parameters are tensors and numbers" pn name pt
        | true, _ when not isTensor ->
            fail "signature item %d (%s) is a number, but parameter '%s' of %s is a Tensor (give its dtype and shape, e.g. float32[5,7])" (i + 1) text pn name
        | false, Some dt when isTensor ->
            fail "signature item %d (%s) is a tensor, but parameter '%s' of %s is a number (write its dtype alone: %s)" (i + 1) text pn name dt
        | _ -> ())

let private libraryAssembly (a: Assembly) =
    let n = a.GetName().Name
    n = "FSharp.Core" || n = "TorchSharp" || n = "Kgen" || n = "mscorlib" || n = "netstandard" || n.StartsWith "System."

/// `<@ gate @>` (and what F# quotes for `Kgen.compileFn gate`) is the function's eta-expansion,
/// fun x g -> gate x g: a function F# kept no body for gives kgen nothing to compile, which is
/// said by name here rather than as kgen's "unknown member".
let requireReflected (q: Expr) =
    let rec inner e =
        match e with
        | Lambda(_, b) -> inner b
        | Let(_, TupleGet(Var _, _), b) -> inner b
        | b -> b
    match inner q with
    | Call(None, mi, _) when not (libraryAssembly mi.DeclaringType.Assembly) && (Expr.TryGetReflectedDefinition mi).IsNone ->
        fail "%s.%s has no reflected definition: mark it [<ReflectedDefinition>] so that F# keeps its body for kgen" mi.DeclaringType.Name mi.Name
    | _ -> ()

/// Makes the tensor a capture parameter is called with: (dtype name, shape) -> tensor.
type TensorMaker = string -> int64[] -> torch.Tensor

/// Zeros of the capture's dtype and shape (what `build` passes: only dtype and shape matter).
let zeros: TensorMaker = fun dt shape -> torch.zeros(shape, dtype = dtypeOf dt)

/// Call a function that returns a quotation with captured tensors made from the signature.
let private callWithCaptures (make: TensorMaker) (m: MethodInfo) (a: EntryAttribute) =
    let caps = Serializer.signatureCaptures (if isNull a.Signature then "" else a.Signature)
    let args =
        m.GetParameters()
        |> Array.map (fun p ->
            match caps |> List.tryFind (fun (n, _, _) -> n = p.Name) with
            | Some(_, dt, dims) when p.ParameterType = typeof<torch.Tensor> ->
                let shape = dims |> List.map (Option.defaultValue 1L) |> Array.ofList
                box (make dt shape)
            | _ ->
                raise (Serializer.SerializeError(sprintf "%s.%s: parameter '%s' is not a tensor capture of the signature (write it as '%s=DTYPE[...]')"
                                                       m.DeclaringType.Name m.Name p.Name p.Name)))
    m.Invoke(null, args) |> asExpr

/// The entries of one module type (and of its nested modules), in declaration order.
let rec moduleEntriesWith (make: TensorMaker) (t: Type) : Serializer.Entry list =
    let members = t.GetMembers flags |> Array.sortBy (fun m -> m.MetadataToken)
    let own =
        members
        |> Array.choose (fun m ->
            match m with
            | :? PropertyInfo as p when typeof<Expr>.IsAssignableFrom p.PropertyType && p.GetIndexParameters().Length = 0 ->
                Some(entryOf p.Name (p.GetValue null |> asExpr) (entryAttr p))
            | :? MethodInfo as mi when not mi.IsSpecialName ->
                match entryAttr mi with
                | None -> None
                | Some a when typeof<Expr>.IsAssignableFrom mi.ReturnType -> Some(entryOf mi.Name (callWithCaptures make mi a) (Some a))
                | Some a ->
                    match Expr.TryGetReflectedDefinition mi with
                    | Some body ->
                        if not (isNull a.Signature) then checkSignatureFits mi.Name mi a.Signature
                        Some(entryOf mi.Name body (Some a))
                    | None ->
                        raise (Serializer.SerializeError(sprintf "%s.%s is marked [<Kgen.Entry>] but has no [<ReflectedDefinition>]" t.Name mi.Name))
            | _ -> None)
        |> List.ofArray
    let nested =
        t.GetNestedTypes(BindingFlags.Public ||| BindingFlags.NonPublic)
        |> Array.filter isModule
        |> Array.sortBy (fun n -> n.MetadataToken)
        |> List.ofArray
        |> List.collect (moduleEntriesWith make)
    own @ nested

let moduleEntries (t: Type) = moduleEntriesWith zeros t

let rec private functionsNamed (t: Type) (name: string) : MethodInfo list =
    (t.GetMethods flags |> Array.filter (fun m -> m.Name = name && not m.IsSpecialName) |> List.ofArray)
    @ (t.GetNestedTypes(BindingFlags.Public ||| BindingFlags.NonPublic)
       |> Array.filter isModule
       |> List.ofArray
       |> List.collect (fun n -> functionsNamed n name))

/// The function `name` of a module (or of its nested modules) as an entry with `signature`
/// (checked against its parameters): its reflected body; None when there is no such function.
let reflectedEntry (t: Type) (name: string) (signature: string option) : Serializer.Entry option =
    match functionsNamed t name with
    | [] -> None
    | mi :: _ ->
        match Expr.TryGetReflectedDefinition mi with
        | None -> fail "%s has no reflected definition: mark it [<ReflectedDefinition>] so that F# keeps its body for kgen" name
        | Some body ->
            match signature with
            | None -> fail "%s needs a signature: give it with --sig (one item per parameter: %s), or mark it [<Kgen.Entry(\"...\")>]" name (showParams mi)
            | Some s ->
                checkSignatureFits name mi s
                Some { Name = name; Expr = body; Signature = Some s; NonZero = [||] }

/// The module type a source file declares (`module A.B` on its first code line), in `asm`.
let moduleOfSource (asm: Assembly) (source: string) : Type option =
    let decl =
        IO.File.ReadLines source
        |> Seq.map (fun l -> l.Trim())
        |> Seq.tryFind (fun l -> l.StartsWith "module " || l.StartsWith "namespace ")
    match decl with
    | Some l when l.StartsWith "module " ->
        let name = l.Substring(7).Trim().Split([| ' '; '=' |], StringSplitOptions.RemoveEmptyEntries).[0]
        let name = if name = "rec" then l.Substring(11).Trim() else name
        // Module types nest with '+': A.B.C may be namespace A.B, module C.
        asm.GetTypes() |> Array.tryFind (fun ty -> ty.FullName = name || ty.FullName.Replace('+', '.') = name)
    | _ ->
        // An implicit module: the file name, capitalized.
        let n = IO.Path.GetFileNameWithoutExtension source
        let n = string (Char.ToUpperInvariant n.[0]) + n.Substring 1
        asm.GetTypes() |> Array.tryFind (fun ty -> ty.Name = n && isModule ty)

/// The kgen document of one source file of a compiled assembly; `signature` is used for the
/// entries that have none of their own.
let entriesOfSource (make: TensorMaker) (signature: string option) (asm: Assembly) (source: string) =
    match moduleOfSource asm source with
    | None -> raise (Serializer.SerializeError(sprintf "%s: no module of this file in %s" source (asm.GetName().Name)))
    | Some t ->
        moduleEntriesWith make t
        |> List.map (fun e -> if e.Signature.IsNone then { e with Signature = signature } else e)

/// The entries of a source file, and — when `entry` names a [<ReflectedDefinition>] function
/// that is none of them — that function, with `signature` (`kgen-fsharp check --entry gate --sig ...`).
let entriesOfSourceNamed (make: TensorMaker) (signature: string option) (entry: string option) (asm: Assembly) (source: string) =
    let es = entriesOfSource make signature asm source
    match entry with
    | Some e when not (es |> List.exists (fun x -> x.Name = e)) ->
        match moduleOfSource asm source |> Option.bind (fun t -> reflectedEntry t e signature) with
        | Some x -> es @ [ x ]
        | None -> es
    | _ -> es

let documentOfSourceWith (signature: string option) (asm: Assembly) (source: string) : Serializer.Document =
    match moduleOfSource asm source with
    | None -> raise (Serializer.SerializeError(sprintf "%s: no module of this file in %s" source (asm.GetName().Name)))
    | Some t ->
        moduleEntries t
        |> List.map (fun e -> if e.Signature.IsNone then { e with Signature = signature } else e)
        |> Serializer.serialize

/// The kgen document of one source file of a compiled assembly.
let documentOfSource (asm: Assembly) (source: string) = documentOfSourceWith None asm source
