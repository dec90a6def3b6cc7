// Kgen.Serializer: F# quotations (Microsoft.FSharp.Quotations.Expr) to kgen-quotation v1 JSON.
//
// One JSON node per `Patterns` case, nothing desugared (../shared/spec/quotation-json.md and
// docs/fsharp.md): variables by identity (an index into the document's "vars"), members with
// the *instantiated* method's decl/name/params/ret/genericArgs in Type.ToString() spellings,
// `loc` from each node's DebugRange attribute (compile with --quotations-debug+), shortest
// round-trip floats, Int64 past 2^53 as strings, CallWithWitnesses' witnesses. Calls to
// [<ReflectedDefinition>] members are collected transitively into "definitions". Captured
// tensors (ValueWithName over an object) become named inputs; the live objects are kept in the
// result so a caller can bind them.
module Kgen.Serializer

open System
open System.Collections.Generic
open System.Globalization
open System.IO
open System.Reflection
open System.Text.Json
open Microsoft.FSharp.Quotations
open Microsoft.FSharp.Quotations.Patterns

/// An entry to serialize: its name, its quotation (normally a chain of Lambdas) and its
/// signature in kgen's compact form (None: the document has no signature for it).
type Entry =
    { Name: string
      Expr: Expr
      Signature: string option
      NonZero: int[] }

/// A captured object named in the document (ValueWithName of a non-primitive).
type Capture = { Name: string; Value: obj; Type: Type }

/// What serializing produced: the JSON text and the captured objects by name.
type Document =
    { Json: string
      Captures: Capture list }

/// A construct the serializer cannot write (an unsupported value, a malformed signature).
exception SerializeError of string

let private fail fmt = Printf.kprintf (fun s -> raise (SerializeError s)) fmt

// ---------------------------------------------------------------------------------------
// Compact signatures ("float32[N,768], float32, w=float16[768]") to the JSON signature
// object. The same grammar as frontend/sig.c's compact form.
// ---------------------------------------------------------------------------------------

let private dtypes =
    set [ "bool"; "uint8"; "int8"; "int16"; "int32"; "int64"; "float16"; "bfloat16"; "float32"; "float64" ]

/// Split at top-level commas (commas inside [...] belong to a shape or a range).
let private splitTop (s: string) =
    let items = ResizeArray<string>()
    let mutable depth = 0
    let mutable start = 0
    for i in 0 .. s.Length - 1 do
        match s.[i] with
        | '[' -> depth <- depth + 1
        | ']' | ')' -> depth <- depth - 1 // a range `in [lo, hi)` closes with ')'
        | ',' when depth = 0 ->
            items.Add(s.Substring(start, i - start).Trim())
            start <- i + 1
        | _ -> ()
    let last = s.Substring(start).Trim()
    if last <> "" || items.Count > 0 then items.Add last
    items |> Seq.toList

type private SigItem =
    | Scalar of string
    | TensorSig of string * string list // dtype, dims (int, symbol or "?")

/// The values test inputs of an item are drawn from: `int64[2,8] in [0, 100)` (frontend/sig.c).
type private Range = (float * float) option

let private rangeRx = Text.RegularExpressions.Regex(@"^(.*?)\s+in\s*\[\s*([^,\]]+?)\s*,\s*([^)]+?)\s*\)\s*$")

let private parseItem (n: int) (item0: string) : string option * SigItem * Range =
    let item, range =
        let m = rangeRx.Match item0
        if not m.Success then item0, None
        else
            let num (t: string) =
                match Double.TryParse(t, NumberStyles.Float, CultureInfo.InvariantCulture) with
                | true, v when Double.IsFinite v -> v
                | _ -> fail "signature item %d (%s): '%s' is not a number in a range 'in [lo, hi)'" n item0 t
            let lo, hi = num m.Groups.[2].Value, num m.Groups.[3].Value
            if lo > hi then fail "signature item %d (%s): a range [lo, hi) needs lo <= hi" n item0
            m.Groups.[1].Value.Trim(), Some(lo, hi)
    let name, rest =
        match item.IndexOf '=' with
        | -1 -> None, item
        | i -> Some(item.Substring(0, i).Trim()), item.Substring(i + 1).Trim()
    let dtype, dims =
        match rest.IndexOf '[' with
        | -1 -> rest, None
        | i ->
            if not (rest.EndsWith "]") then fail "signature item %d (%s): a shape must end with ']'" n item
            let inner = rest.Substring(i + 1, rest.Length - i - 2).Trim()
            let dims = if inner = "" then [] else inner.Split(',') |> Array.map (fun d -> d.Trim()) |> Array.toList
            rest.Substring(0, i).Trim(), Some dims
    if not (dtypes.Contains dtype) then
        fail "signature item %d (%s): unknown dtype '%s'" n item dtype
    let it =
        match dims with
        | None -> Scalar dtype
        | Some ds -> TensorSig(dtype, ds)
    if range.IsSome && dtype = "bool" then fail "signature item %d (%s): a bool parameter takes no range" n item0
    name, it, range

let private writeSigItem (w: Utf8JsonWriter) (it: SigItem) (nonzero: bool) (range: Range) =
    w.WriteStartObject()
    match it with
    | Scalar dt -> w.WriteString("scalar", dt)
    | TensorSig(dt, dims) ->
        w.WriteString("dtype", dt)
        w.WriteStartArray "shape"
        for d in dims do
            match Int64.TryParse(d, NumberStyles.None, CultureInfo.InvariantCulture) with
            | true, v -> w.WriteNumberValue v
            | _ when d = "?" -> w.WriteNullValue()
            | _ -> w.WriteStringValue d
        w.WriteEndArray()
    if nonzero then w.WriteBoolean("nonzero", true)
    match range with
    | Some(lo, hi) ->
        w.WriteStartArray "range"
        w.WriteNumberValue lo
        w.WriteNumberValue hi
        w.WriteEndArray()
    | None -> ()
    w.WriteEndObject()

/// The tensors a capture item of a compact signature describes: (name, dtype, dims) with
/// symbolic or unknown dims as None. Used to synthesize captured values.
let signatureCaptures (signature: string) =
    splitTop signature
    |> List.mapi parseItem
    |> List.choose (fun (name, it, _) ->
        match name, it with
        | Some n, TensorSig(dt, dims) ->
            let ds = dims |> List.map (fun d -> match Int64.TryParse d with | true, v -> Some v | _ -> None)
            Some(n, dt, ds)
        | _ -> None)

/// The parameters a compact signature describes, in order: each item's text and whether it
/// is a tensor (capture items `name=...` left out).
let signatureParams (signature: string) =
    splitTop signature
    |> List.mapi (fun i s -> s, parseItem (i + 1) s)
    |> List.choose (fun (s, (name, it, _)) ->
        match name, it with
        | Some _, _ -> None
        | None, TensorSig _ -> Some(s, true)
        | None, Scalar _ -> Some(s, false))

let private dtypeName (t: TorchSharp.torch.ScalarType) =
    match t with
    | TorchSharp.torch.ScalarType.Bool -> "bool"
    | TorchSharp.torch.ScalarType.Byte -> "uint8"
    | TorchSharp.torch.ScalarType.Int8 -> "int8"
    | TorchSharp.torch.ScalarType.Int16 -> "int16"
    | TorchSharp.torch.ScalarType.Int32 -> "int32"
    | TorchSharp.torch.ScalarType.Int64 -> "int64"
    | TorchSharp.torch.ScalarType.Float16 -> "float16"
    | TorchSharp.torch.ScalarType.BFloat16 -> "bfloat16"
    | TorchSharp.torch.ScalarType.Float32 -> "float32"
    | TorchSharp.torch.ScalarType.Float64 -> "float64"
    | t -> fail "captured tensor of dtype %O: kgen supports %s" t (String.concat ", " dtypes)

/// A bound written with 6 significant digits (mean and deviation are sums: their last bits
/// must not make two serializations of the same weights differ).
let private round6 (v: float) = if v = 0.0 then 0.0 else Double.Parse(v.ToString("G6", Globalization.CultureInfo.InvariantCulture), Globalization.CultureInfo.InvariantCulture)

/// The signature item of a live captured tensor: its dtype, (static) shape, and the range of
/// its values, so that a test without the live tensor (kgen check on the document) draws
/// values at the real scale (a layer's weights in ±1/sqrt(fan_in), not in ±9). For floats
/// the range is the uniform distribution with the live values' mean and deviation
/// (mean ± √3·σ), inside [min, max]: the extremes of normally initialized weights (kaiming,
/// N(0, 0.01)) lie at ±4σ and are not symmetric, and uniform draws over them had 2.3 times the
/// deviation (ResNet-18's activations grew 2.3x a layer, to 10^6) and a mean off zero
/// (VGG's 25088-wide classifier summed it into an all-negative layer: every ReLU output 0).
/// Integers keep [min, max] (ids stay inside their table); constants are [c, c].
let private liveItem (c: Capture) : (SigItem * Range) option =
    match c.Value with
    | :? TorchSharp.torch.Tensor as t ->
        let it = TensorSig(dtypeName t.dtype, [ for d in t.shape -> string d ])
        let range =
            if t.numel() = 0L || t.dtype = TorchSharp.torch.ScalarType.Bool then None
            else
                use d = t.detach().to_type(TorchSharp.torch.ScalarType.Float64)
                let lo, hi = d.min().item<float>(), d.max().item<float>()
                if not (Double.IsFinite lo && Double.IsFinite hi) then None
                elif t.is_floating_point() then
                    if lo = hi then Some(lo, hi)
                    else
                        let mean = d.mean().item<float>()
                        let sd = d.std(false).item<float>()
                        let h = sqrt 3.0 * sd
                        Some(max lo (round6 (mean - h)), min hi (round6 (mean + h)))
                else Some(lo, hi + 1.0) // integers: [min, max]
        Some(it, range)
    | _ -> None

let private writeSignature (w: Utf8JsonWriter) (signature: string) (nonzero: int[]) (captured: Capture list) =
    let items = splitTop signature |> List.mapi (fun i s -> parseItem (i + 1) s)
    w.WriteStartObject "signature"
    w.WriteStartArray "params"
    items
    |> List.filter (fun (n, _, _) -> n.IsNone)
    |> List.iteri (fun i (_, it, r) -> writeSigItem w it (Array.contains i nonzero) r)
    w.WriteEndArray()
    let named = items |> List.filter (fun (n, _, _) -> n.IsSome)
    // captured tensors the signature does not list are described by the live tensors
    let live =
        captured
        |> List.filter (fun c -> not (named |> List.exists (fun (n, _, _) -> n = Some c.Name)))
        |> List.choose (fun c -> liveItem c |> Option.map (fun (it, r) -> Some c.Name, it, r))
    let caps = named @ live
    if not caps.IsEmpty then
        w.WriteStartObject "captures"
        for (n, it, r) in caps do
            w.WritePropertyName n.Value
            writeSigItem w it false r
        w.WriteEndObject()
    w.WriteEndObject()

// ---------------------------------------------------------------------------------------
// The walk
// ---------------------------------------------------------------------------------------

type private Ctx =
    { Files: List<string>
      FileIndex: Dictionary<string, int>
      Vars: List<Var>
      VarIndex: Dictionary<Var, int>
      Captures: List<Capture>
      Definitions: List<MethodBase * Expr>
      DefinitionKeys: HashSet<string>
      /// `this` of an inlined user module forward -> the live module (Kgen.Modules)
      LiveVars: Dictionary<Var, Modules.Live>
      /// captures of the entry being written (its signature lists them)
      EntryCaptures: List<Capture>
      /// the DebugRange given to generated nodes (a module expansion takes its call site's)
      mutable Inherited: (string * int * int * int * int) option }

let private tyName (t: Type) = t.ToString()

let private varIndex (c: Ctx) (v: Var) =
    match c.VarIndex.TryGetValue v with
    | true, i -> i
    | _ ->
        let i = c.Vars.Count
        c.Vars.Add v
        c.VarIndex.[v] <- i
        i

let private writeMember (w: Utf8JsonWriter) (field: string) (decl: Type) (name: string) (isStatic: bool)
                        (pars: Type[]) (ret: Type) (gen: Type[]) =
    w.WriteStartObject field
    w.WriteString("decl", tyName decl)
    w.WriteString("name", name)
    w.WriteBoolean("static", isStatic)
    w.WriteStartArray "params"
    for p in pars do w.WriteStringValue(tyName p)
    w.WriteEndArray()
    w.WriteString("ret", tyName ret)
    w.WriteStartArray "genericArgs"
    for g in gen do w.WriteStringValue(tyName g)
    w.WriteEndArray()
    w.WriteEndObject()

let private writeMethod (w: Utf8JsonWriter) (field: string) (m: MethodInfo) =
    writeMember w field m.DeclaringType m.Name m.IsStatic
        (m.GetParameters() |> Array.map (fun p -> p.ParameterType)) m.ReturnType
        (if m.IsGenericMethod then m.GetGenericArguments() else [||])

/// A union case: {"decl": union type, "name", "tag"}.
let private writeCase (w: Utf8JsonWriter) (uc: Reflection.UnionCaseInfo) =
    w.WriteStartObject "case"
    w.WriteString("decl", tyName uc.DeclaringType)
    w.WriteString("name", uc.Name)
    w.WriteNumber("tag", uc.Tag)
    w.WriteEndObject()

let private memberKey (m: MethodBase) =
    let ps = m.GetParameters() |> Array.map (fun p -> tyName p.ParameterType) |> String.concat ","
    let gs = if m.IsGenericMethod then m.GetGenericArguments() |> Array.map tyName |> String.concat "," else ""
    sprintf "%s::%s<%s>(%s)" (tyName m.DeclaringType) m.Name gs ps

let private rawNumber (w: Utf8JsonWriter) (s: string) = w.WriteRawValue(s, true)

let private twoTo53 = 9007199254740992.0

/// A constant of type `t` (spec "Values").
let rec private writeValue (w: Utf8JsonWriter) (v: obj) (t: Type) =
    match v with
    | null -> w.WriteNullValue()
    | :? bool as b -> w.WriteBooleanValue b
    | :? Enum as e ->
        w.WriteStartObject()
        w.WriteNumber("enum", Convert.ToInt64(e, CultureInfo.InvariantCulture))
        w.WriteString("name", e.ToString())
        w.WriteEndObject()
    | :? sbyte as x -> w.WriteNumberValue(int x)
    | :? byte as x -> w.WriteNumberValue(int x)
    | :? int16 as x -> w.WriteNumberValue(int x)
    | :? uint16 as x -> w.WriteNumberValue(int x)
    | :? int as x -> w.WriteNumberValue x
    | :? uint32 as x -> w.WriteNumberValue x
    | :? int64 as x ->
        if abs (float x) < twoTo53 then w.WriteNumberValue x
        else w.WriteStringValue(x.ToString(CultureInfo.InvariantCulture))
    | :? uint64 as x ->
        if float x < twoTo53 then w.WriteNumberValue x
        else w.WriteStringValue(x.ToString(CultureInfo.InvariantCulture))
    | :? single as x ->
        if Single.IsNaN x then w.WriteStringValue "NaN"
        elif Single.IsPositiveInfinity x then w.WriteStringValue "Infinity"
        elif Single.IsNegativeInfinity x then w.WriteStringValue "-Infinity"
        else rawNumber w (x.ToString("R", CultureInfo.InvariantCulture))
    | :? double as x ->
        if Double.IsNaN x then w.WriteStringValue "NaN"
        elif Double.IsPositiveInfinity x then w.WriteStringValue "Infinity"
        elif Double.IsNegativeInfinity x then w.WriteStringValue "-Infinity"
        else rawNumber w (x.ToString("R", CultureInfo.InvariantCulture))
    | :? string as s -> w.WriteStringValue s
    | :? char as c -> w.WriteStringValue(string c)
    | :? unit -> w.WriteNullValue()
    | :? Array as a when a.GetType().GetElementType().IsPrimitive || a.GetType().GetElementType().IsEnum ->
        w.WriteStartObject()
        w.WriteStartArray "array"
        for x in a do writeValue w x (a.GetType().GetElementType())
        w.WriteEndArray()
        w.WriteEndObject()
    | _ ->
        w.WriteStartObject()
        w.WriteBoolean("opaque", true)
        w.WriteEndObject()

/// The DebugRange attribute of a node: (file, startLine, startCol, endLine, endCol).
let private debugRange (e: Expr) =
    e.CustomAttributes
    |> List.tryPick (function
        | NewTuple [ Value(:? string as tag, _); NewTuple [ Value(:? string as file, _); Value(:? int as sl, _)
                                                            Value(:? int as sc, _); Value(:? int as el, _)
                                                            Value(:? int as ec, _) ] ] when tag = "DebugRange" ->
            Some(file, sl, sc, el, ec)
        | _ -> None)

let private writeLoc (c: Ctx) (w: Utf8JsonWriter) (e: Expr) =
    match (match debugRange e with Some r -> Some r | None -> c.Inherited) with
    | None -> ()
    | Some(file, sl, sc, el, ec) ->
        let name = Path.GetFileName file
        let fi =
            match c.FileIndex.TryGetValue name with
            | true, i -> i
            | _ ->
                let i = c.Files.Count
                c.Files.Add name
                c.FileIndex.[name] <- i
                i
        w.WriteStartArray "loc"
        for x in [ fi; sl; sc; el; ec ] do w.WriteNumberValue x
        w.WriteEndArray()

let rec private writeNodes (c: Ctx) (w: Utf8JsonWriter) (field: string) (es: Expr list) =
    w.WriteStartArray field
    for e in es do writeNode c w None e
    w.WriteEndArray()

and private writeOpt (c: Ctx) (w: Utf8JsonWriter) (field: string) (e: Expr option) =
    match e with
    | None -> w.WriteNull field
    | Some e -> writeNode c w (Some field) e

/// Queue the [<ReflectedDefinition>] body of a called method (once per instantiation).
and private noteDefinition (c: Ctx) (m: MethodBase) =
    let key = memberKey m
    if not (c.DefinitionKeys.Contains key) then
        match Expr.TryGetReflectedDefinition m with
        | Some body ->
            c.DefinitionKeys.Add key |> ignore
            c.Definitions.Add((m, body))
        | None -> ()

/// Write `e'` in place of `e` (a module expansion): its generated nodes get e's loc.
and private writeInstead (c: Ctx) (w: Utf8JsonWriter) (field: string option) (e: Expr) (e': Expr) =
    let saved = c.Inherited
    c.Inherited <- (match debugRange e with Some r -> Some r | None -> saved)
    writeNode c w field e'
    c.Inherited <- saved

and private writeNode (c: Ctx) (w: Utf8JsonWriter) (field: string option) (e: Expr) =
    let vars (v: Var) = match c.LiveVars.TryGetValue v with | true, l -> Some l | _ -> None
    try
        match e with
        | Modules.ModuleApply vars (l, x) ->
            match Modules.apply l x with
            | Choice1Of2 e' -> writeInstead c w field e e'
            | Choice2Of2(this, body) -> writeInlined c w field e this l body
        | Recurrent.RecurrentApply vars e' -> writeInstead c w field e e'
        | Modules.CellApply vars e' -> writeInstead c w field e e'
        | Modules.AttentionApply vars e' -> writeInstead c w field e e'
        | Modules.TransformerApply vars e' -> writeInstead c w field e e'
        | Modules.DecoderApply vars e' -> writeInstead c w field e e'
        | Modules.ModuleMethod vars (l, this, body) -> writeInlined c w field e this l body
        | Modules.ModuleTensorByName vars e' -> writeInstead c w field e e'
        | Modules.LiveNullTest vars e' -> writeInstead c w field e e'
        | Modules.ModuleForEach vars (item, body, items) -> writeUnrolled c w field e item body items
        | Modules.ModuleMap vars (item, body, items) -> writeMapped c w field e item body items
        | Modules.ModuleLet vars (v, l, body) ->
            c.LiveVars.[v] <- l
            writeInstead c w field e body
            c.LiveVars.Remove v |> ignore
        | Modules.ModuleRedex vars (bound, body) ->
            for (v, l) in bound do c.LiveVars.[v] <- l
            writeInstead c w field e body
            for (v, _) in bound do c.LiveVars.Remove v |> ignore
        | Modules.LiveValue vars e' -> writeInstead c w field e e'
        | Var v when c.LiveVars.ContainsKey v ->
            fail "%sthe module object '%s' (%s) is used other than through its fields, its tensors by name or its reflected methods"
                (locText e) v.Name (c.LiveVars.[v].Obj.GetType().ToString())
        | _ -> writeNode1 c w field e
    with Modules.ModuleError msg -> fail "%s%s" (locText e) msg

/// A user module's reflected method inlined at its call site `e`, `this` bound to the live module.
and private writeInlined (c: Ctx) (w: Utf8JsonWriter) (field: string option) (e: Expr) (this: Var) (l: Modules.Live) (body: Expr) =
    let saved = match c.LiveVars.TryGetValue this with | true, s -> Some s | _ -> None
    c.LiveVars.[this] <- l
    writeInstead c w field e body
    match saved with
    | Some s -> c.LiveVars.[this] <- s
    | None -> c.LiveVars.Remove this |> ignore

/// A loop over a live module list, unrolled: Sequential(body[item1], Sequential(body[item2], ...)).
and private writeUnrolled (c: Ctx) (w: Utf8JsonWriter) (field: string option) (e: Expr) (item: Var) (body: Expr)
                          (items: Modules.Live list) =
    let one (f: string option) (l: Modules.Live) =
        c.LiveVars.[item] <- l
        writeInstead c w f e body
        c.LiveVars.Remove item |> ignore
    match items with
    | [] -> writeInstead c w field e (Expr.Value(()))
    | [ l ] -> one field l
    | l :: rest ->
        match field with
        | Some f -> w.WriteStartObject f
        | None -> w.WriteStartObject()
        w.WriteString("k", "Sequential")
        w.WriteString("ty", tyName typeof<unit>)
        one (Some "first") l
        writeUnrolled c w (Some "second") e item body rest
        writeLoc c w e
        w.WriteEndObject()

/// `Seq.map (fun item -> body) list` over a live module list: the sequence is the array of one
/// copy of the body per module, Coerce(NewArray(body[item1], body[item2], ...), seq<'T>).
and private writeMapped (c: Ctx) (w: Utf8JsonWriter) (field: string option) (e: Expr) (item: Var) (body: Expr)
                        (items: Modules.Live list) =
    match field with
    | Some f -> w.WriteStartObject f
    | None -> w.WriteStartObject()
    w.WriteString("k", "Coerce")
    w.WriteString("ty", tyName e.Type)
    w.WriteStartObject "expr"
    w.WriteString("k", "NewArray")
    w.WriteString("ty", tyName (body.Type.MakeArrayType()))
    w.WriteString("elemType", tyName body.Type)
    w.WriteStartArray "items"
    for l in items do
        c.LiveVars.[item] <- l
        writeInstead c w None e body
        c.LiveVars.Remove item |> ignore
    w.WriteEndArray()
    writeLoc c w e
    w.WriteEndObject()
    writeLoc c w e
    w.WriteEndObject()

and private locText (e: Expr) =
    match debugRange e with
    | Some(f, l, col, _, _) -> sprintf "%s:%d:%d: " (Path.GetFileName f) l col
    | None -> ""

and private writeNode1 (c: Ctx) (w: Utf8JsonWriter) (field: string option) (e: Expr) =
    match field with
    | Some f -> w.WriteStartObject f
    | None -> w.WriteStartObject()
    let kind k =
        w.WriteString("k", (k: string))
        w.WriteString("ty", tyName e.Type)
    match e with
    | Var v ->
        kind "Var"
        w.WriteNumber("var", varIndex c v)
    | ValueWithName(v, t, name) ->
        kind "ValueWithName"
        w.WritePropertyName "value"
        writeValue w v t
        w.WriteString("name", name)
        match v with
        | null -> ()
        | _ when t.IsPrimitive || t.IsEnum || t = typeof<string> || t.IsArray -> ()
        | _ ->
            let cap = { Name = name; Value = v; Type = t }
            match c.Captures.Find(fun x -> x.Name = name) with
            | x when isNull (box x) -> c.Captures.Add cap
            | x when not (Object.ReferenceEquals(x.Value, v)) ->
                fail "two different captured objects are both named '%s'" name
            | _ -> ()
            if not (c.EntryCaptures.Exists(fun x -> x.Name = name)) then c.EntryCaptures.Add cap
    | WithValue(v, t, body) ->
        kind "WithValue"
        w.WritePropertyName "value"
        writeValue w v t
        writeNode c w (Some "expr") body
    | Value(v, t) ->
        kind "Value"
        w.WritePropertyName "value"
        writeValue w v t
    | Lambda(v, body) ->
        kind "Lambda"
        w.WriteNumber("var", varIndex c v)
        writeNode c w (Some "body") body
    | Application(f, a) ->
        kind "Application"
        writeNode c w (Some "func") f
        writeNode c w (Some "arg") a
    | Let(v, value, body) ->
        kind "Let"
        w.WriteNumber("var", varIndex c v)
        writeNode c w (Some "value") value
        writeNode c w (Some "body") body
    | LetRecursive(binds, body) ->
        kind "LetRecursive"
        w.WriteStartArray "bindings"
        for (v, value) in binds do
            w.WriteStartObject()
            w.WriteNumber("var", varIndex c v)
            writeNode c w (Some "value") value
            w.WriteEndObject()
        w.WriteEndArray()
        writeNode c w (Some "body") body
    | IfThenElse(cond, a, b) ->
        kind "IfThenElse"
        writeNode c w (Some "cond") cond
        writeNode c w (Some "then") a
        writeNode c w (Some "else") b
    | ForIntegerRangeLoop(v, s, en, body) ->
        kind "ForIntegerRangeLoop"
        w.WriteNumber("var", varIndex c v)
        writeNode c w (Some "start") s
        writeNode c w (Some "end") en
        writeNode c w (Some "body") body
    | WhileLoop(cond, body) ->
        kind "WhileLoop"
        writeNode c w (Some "cond") cond
        writeNode c w (Some "body") body
    | Sequential(a, b) ->
        kind "Sequential"
        writeNode c w (Some "first") a
        writeNode c w (Some "second") b
    | VarSet(v, value) ->
        kind "VarSet"
        w.WriteNumber("var", varIndex c v)
        writeNode c w (Some "value") value
    | CallWithWitnesses(obj, m, _, witnesses, args) ->
        kind "Call"
        writeOpt c w "obj" obj
        writeMethod w "method" m
        writeNodes c w "args" args
        writeNodes c w "witnesses" witnesses
        noteDefinition c m
    | Call(obj, m, args) ->
        kind "Call"
        writeOpt c w "obj" obj
        writeMethod w "method" m
        writeNodes c w "args" args
        noteDefinition c m
    | PropertyGet(obj, p, args) ->
        kind "PropertyGet"
        writeOpt c w "obj" obj
        let acc = p.GetGetMethod true
        writeMember w "property" p.DeclaringType p.Name (not (isNull acc) && acc.IsStatic)
            (p.GetIndexParameters() |> Array.map (fun x -> x.ParameterType)) p.PropertyType [||]
        writeNodes c w "args" args
        if not (isNull acc) then noteDefinition c acc
    | PropertySet(obj, p, args, value) ->
        kind "PropertySet"
        writeOpt c w "obj" obj
        let acc = p.GetSetMethod true
        writeMember w "property" p.DeclaringType p.Name (not (isNull acc) && acc.IsStatic)
            (p.GetIndexParameters() |> Array.map (fun x -> x.ParameterType)) p.PropertyType [||]
        writeNodes c w "args" args
        writeNode c w (Some "value") value
    | FieldGet(obj, f) ->
        kind "FieldGet"
        writeOpt c w "obj" obj
        writeMember w "field" f.DeclaringType f.Name f.IsStatic [||] f.FieldType [||]
    | FieldSet(obj, f, value) ->
        kind "FieldSet"
        writeOpt c w "obj" obj
        writeMember w "field" f.DeclaringType f.Name f.IsStatic [||] f.FieldType [||]
        writeNode c w (Some "value") value
    | NewTuple items ->
        kind (if e.Type.IsValueType then "NewStructTuple" else "NewTuple")
        writeNodes c w "items" items
    | TupleGet(t, i) ->
        kind "TupleGet"
        writeNode c w (Some "tuple") t
        w.WriteNumber("index", i)
    | NewArray(t, items) ->
        kind "NewArray"
        w.WriteString("elemType", tyName t)
        writeNodes c w "items" items
    | NewObject(ctor, args) ->
        kind "NewObject"
        writeMember w "ctor" ctor.DeclaringType ctor.Name false
            (ctor.GetParameters() |> Array.map (fun p -> p.ParameterType)) ctor.DeclaringType [||]
        writeNodes c w "args" args
    | Coerce(x, _) ->
        kind "Coerce"
        writeNode c w (Some "expr") x
    | DefaultValue _ -> kind "DefaultValue"
    | NewRecord(_, args) ->
        kind "NewRecord"
        writeNodes c w "args" args
    | NewUnionCase(uc, args) ->
        kind "NewUnionCase"
        writeCase w uc
        writeNodes c w "args" args
    | UnionCaseTest(x, uc) ->
        kind "UnionCaseTest"
        writeNode c w (Some "expr") x
        writeCase w uc
    | TypeTest(x, t) ->
        kind "TypeTest"
        writeNode c w (Some "expr") x
        w.WriteString("type", tyName t)
    | TryWith(body, fv, fbody, cv, cbody) ->
        kind "TryWith"
        writeNode c w (Some "body") body
        w.WriteNumber("filterVar", varIndex c fv)
        writeNode c w (Some "filter") fbody
        w.WriteNumber("catchVar", varIndex c cv)
        writeNode c w (Some "catch") cbody
    | TryFinally(body, fin) ->
        kind "TryFinally"
        writeNode c w (Some "body") body
        writeNode c w (Some "finally") fin
    | AddressOf x ->
        kind "AddressOf"
        writeNode c w (Some "expr") x
    | AddressSet(x, v) ->
        kind "AddressSet"
        writeNode c w (Some "target") x
        writeNode c w (Some "value") v
    | NewDelegate(_, vars, body) ->
        kind "NewDelegate"
        w.WriteStartArray "vars"
        for v in vars do w.WriteNumberValue(varIndex c v)
        w.WriteEndArray()
        writeNode c w (Some "body") body
    | QuoteTyped x ->
        kind "Quote"
        writeNode c w (Some "expr") x
    | QuoteRaw x ->
        kind "Quote"
        writeNode c w (Some "expr") x
    | _ -> fail "no kgen-quotation node for the expression %A" e
    writeLoc c w e
    w.WriteEndObject()

/// The deepest document the serializer writes (cJSON's CJSON_NESTING_LIMIT).
let maxDepth = 1000

/// Serialize entries (and the reflected definitions they reach) as one kgen document.
let serialize (entries: Entry list) : Document =
    let c =
        { Files = List()
          FileIndex = Dictionary()
          Vars = List()
          VarIndex = Dictionary(HashIdentity.Reference)
          Captures = List()
          Definitions = List()
          DefinitionKeys = HashSet()
          LiveVars = Dictionary(HashIdentity.Reference)
          EntryCaptures = List()
          Inherited = None }
    // The body first (it fills files, vars and definitions), the header after.
    use bodyStream = new MemoryStream()
    // whole model forwards nest deeper than System.Text.Json's default 64 (a Let chain is one
    // level per binding): allow cJSON's own limit, the most the C reader could ever take
    let opts = JsonWriterOptions(Indented = true, IndentSize = 1, SkipValidation = false, MaxDepth = maxDepth)
    (
        use w = new Utf8JsonWriter(bodyStream, opts)
        w.WriteStartObject()
        w.WriteStartArray "entries"
        for en in entries do
            w.WriteStartObject()
            w.WriteString("name", en.Name)
            // the expression first (it finds the entry's captures), the signature before it
            c.EntryCaptures.Clear()
            use exprStream = new MemoryStream()
            (
                use ew = new Utf8JsonWriter(exprStream, opts)
                writeNode c ew None en.Expr
            )
            match en.Signature with
            | Some s -> writeSignature w s en.NonZero (List.ofSeq c.EntryCaptures)
            | None -> ()
            w.WritePropertyName "expr"
            w.WriteRawValue(exprStream.ToArray(), true)
            w.WriteEndObject()
        w.WriteEndArray()
        if c.Definitions.Count > 0 then
            w.WriteStartArray "definitions"
            let mutable i = 0
            while i < c.Definitions.Count do // grows while we walk: transitive
                let (m, body) = c.Definitions.[i]
                w.WriteStartObject()
                match m with
                | :? MethodInfo as mi -> writeMethod w "member" mi
                | _ -> fail "a reflected definition of a constructor (%O) is not supported" m
                writeNode c w (Some "expr") body
                w.WriteEndObject()
                i <- i + 1
            w.WriteEndArray()
        w.WriteEndObject()
    )
    use out = new MemoryStream()
    (
        use w = new Utf8JsonWriter(out, opts)
        w.WriteStartObject()
        w.WriteString("format", "kgen-quotation")
        w.WriteNumber("version", 1)
        w.WriteStartArray "files"
        for f in c.Files do w.WriteStringValue f
        w.WriteEndArray()
        w.WriteStartArray "vars"
        for v in c.Vars do
            w.WriteStartObject()
            w.WriteString("name", v.Name)
            w.WriteString("type", tyName v.Type)
            w.WriteBoolean("mutable", v.IsMutable)
            w.WriteEndObject()
        w.WriteEndArray()
        // Splice the body object's members in.
        use doc = JsonDocument.Parse(bodyStream.ToArray(), JsonDocumentOptions(MaxDepth = maxDepth))
        for p in doc.RootElement.EnumerateObject() do p.WriteTo w
        w.WriteEndObject()
    )
    { Json = Text.Encoding.UTF8.GetString(out.ToArray()) + "\n"
      Captures = List.ofSeq c.Captures }
