// Kgen.Collect: the entries of a compiled F# module, for `kgen-fsharp build`.
//
// An entry is (docs/fsharp.md "Entries"):
//   - a module-level quotation value (`let f = <@ fun ... @>`: a static property of type Expr);
//   - a `[<ReflectedDefinition>]` function marked `[<Kgen.Entry>]` (its reflected body);
//   - a function returning a quotation, marked `[<Kgen.Entry("...")>]` whose parameters are
//     captures of the signature (`w=float32[768]`): it is called with tensors of those dtypes
//     and shapes, so its captured tensors arrive as named inputs.
// Entries keep the module's declaration order; nested modules follow their parent's entries.
module Kgen.Collect

open System
open System.Reflection
open Microsoft.FSharp.Core
open Microsoft.FSharp.Quotations
open TorchSharp

let private flags =
    BindingFlags.Public ||| BindingFlags.NonPublic ||| BindingFlags.Static ||| BindingFlags.DeclaredOnly

let private isModule (t: Type) =
    t.GetCustomAttributes(typeof<CompilationMappingAttribute>, false)
    |> Seq.cast<CompilationMappingAttribute>
    |> Seq.exists (fun a -> a.SourceConstructFlags &&& SourceConstructFlags.KindMask = SourceConstructFlags.Module)

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
                    | Some body -> Some(entryOf mi.Name body (Some a))
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

let documentOfSourceWith (signature: string option) (asm: Assembly) (source: string) : Serializer.Document =
    match moduleOfSource asm source with
    | None -> raise (Serializer.SerializeError(sprintf "%s: no module of this file in %s" source (asm.GetName().Name)))
    | Some t ->
        moduleEntries t
        |> List.map (fun e -> if e.Signature.IsNone then { e with Signature = signature } else e)
        |> Serializer.serialize

/// The kgen document of one source file of a compiled assembly.
let documentOfSource (asm: Assembly) (source: string) = documentOfSourceWith None asm source
