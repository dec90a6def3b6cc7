// The serializer against the spec (../shared/spec/quotation-json.md) on quotations the F#
// compiler writes here: one node per Patterns case, vars by identity, member keys of the
// instantiated method, witnesses, loc, value encodings, definitions, captures, signatures.
module Kgen.Tests.SerializerTests

open System
open Xunit
open TorchSharp
open Microsoft.FSharp.Quotations
open Kgen
open Kgen.Tests.Support

type Tensor = torch.Tensor

let doc (e: Expr) = Serializer.serialize [ { Name = "f"; Expr = e; Signature = None; NonZero = [||] } ]
let root e = (doc e).Json |> parse
let entryExpr e = (root e |> prop "entries").[0] |> prop "expr"

[<ReflectedDefinition>]
let inner (t: Tensor) = t.relu()

[<ReflectedDefinition>]
let outer (t: Tensor) = inner t + inner (t * 2.0f)

[<Fact>]
let ``a tensor sum is a generic operator call with its witness`` () =
    let e = entryExpr <@ fun (x: Tensor) (b: Tensor) -> x + b @>
    let call = e |> prop "body" |> prop "body"
    Assert.Equal("Call", kind call)
    let m = call |> prop "method"
    Assert.Equal("Microsoft.FSharp.Core.Operators", m |> prop "decl" |> str)
    Assert.Equal("op_Addition", m |> prop "name" |> str)
    Assert.Equal(3, (m |> prop "genericArgs").GetArrayLength())
    Assert.Equal("TorchSharp.torch+Tensor", (m |> prop "params").[0] |> str)
    // F# 6+ quotes SRTP operators with their witnesses (CallWithWitnesses)
    Assert.Equal(1, (call |> prop "witnesses").GetArrayLength())
    Assert.Equal("Lambda", (call |> prop "witnesses").[0] |> kind)

[<Fact>]
let ``vars are identities: a shadowing let gets its own index`` () =
    let r = root <@ fun (x: Tensor) -> let x = x * x in x.exp() @>
    let lam = (r |> prop "entries").[0] |> prop "expr"
    let letNode = lam |> prop "body"
    Assert.Equal("Let", kind letNode)
    let outerX = (lam |> prop "var").GetInt32()
    let innerX = (letNode |> prop "var").GetInt32()
    Assert.NotEqual(outerX, innerX)
    let vars = r |> prop "vars"
    Assert.Equal("x", vars.[outerX] |> prop "name" |> str)
    Assert.Equal("x", vars.[innerX] |> prop "name" |> str)
    Assert.Equal(innerX, (letNode |> prop "body" |> prop "obj" |> prop "var").GetInt32())
    Assert.Equal(outerX, ((letNode |> prop "value" |> prop "args").[0] |> prop "var").GetInt32())

[<Fact>]
let ``values: int64 past 2^53 as a string, singles shortest round-trip`` () =
    let vals =
        root <@ fun (x: Tensor) -> (x, 0.1f, 9007199254740993L, 3L, -2.5) @>
        |> nodes |> Seq.filter (fun n -> kind n = "Value") |> Seq.map (prop "value") |> Seq.map (fun v -> v.GetRawText()) |> List.ofSeq
    Assert.Equal<string list>([ "0.1"; "\"9007199254740993\""; "3"; "-2.5" ], vals)

[<Fact>]
let ``values: NaN and infinities as strings (F# writes them as constants only through Expr.Value)`` () =
    let v = Var("x", typeof<Tensor>)
    let e = Expr.Lambda(v, Expr.NewTuple [ Expr.Var v; Expr.Value nan; Expr.Value(-infinityf); Expr.Value infinity ])
    let vals = root e |> nodes |> Seq.filter (fun n -> kind n = "Value") |> Seq.map (fun n -> (prop "value" n).GetRawText()) |> List.ofSeq
    Assert.Equal<string list>([ "\"NaN\""; "\"-Infinity\""; "\"Infinity\"" ], vals)

[<Fact>]
let ``an enum value carries its number and name; torch.float32 is a static field`` () =
    let ns = root <@ fun (x: Tensor) -> (x.to_type(torch.ScalarType.Float16), x.to_type(torch.float32)) @> |> nodes |> List.ofSeq
    let e = ns |> List.find (fun n -> kind n = "Value" && (n |> prop "ty" |> str) = "TorchSharp.torch+ScalarType")
    Assert.Equal(5, (e |> prop "value" |> prop "enum").GetInt32())
    Assert.Equal("Float16", e |> prop "value" |> prop "name" |> str)
    let f = ns |> List.find (fun n -> kind n = "FieldGet")
    Assert.Equal("float32", f |> prop "field" |> prop "name" |> str)
    Assert.True((f |> prop "field" |> prop "static").GetBoolean())

[<Fact>]
let ``every node has a loc into its source file, columns 0-based`` () =
    let r = root <@ fun (x: Tensor) -> x.relu() @>
    Assert.Equal("SerializerTests.fs", (r |> prop "files").[0] |> str)
    for n in nodes r do
        let loc = n |> prop "loc"
        Assert.Equal(5, loc.GetArrayLength())
        Assert.True(loc.[1].GetInt32() > 0 && loc.[2].GetInt32() >= 0)

[<Fact>]
let ``reflected definitions are collected transitively, once each`` () =
    let r = root <@ fun (x: Tensor) -> outer x + inner x @>
    let defs = r |> prop "definitions"
    let names = [ for d in defs.EnumerateArray() -> d |> prop "member" |> prop "name" |> str ] |> List.sort
    Assert.Equal<string list>([ "inner"; "outer" ], names)
    Assert.Equal("Kgen.Tests.SerializerTests", defs.[0] |> prop "member" |> prop "decl" |> str)

[<Fact>]
let ``a captured tensor is a named opaque input and its object is kept`` () =
    let w = torch.ones(4L)
    let d = doc <@ fun (x: Tensor) -> x * w @>
    let n = parse d.Json |> nodes |> Seq.find (fun n -> kind n = "ValueWithName")
    Assert.Equal("w", n |> prop "name" |> str)
    Assert.True((n |> prop "value" |> prop "opaque").GetBoolean())
    let c = Assert.Single d.Captures
    Assert.Equal("w", c.Name)
    Assert.Same(w, c.Value)

[<Fact>]
let ``use arrives as Let over TryFinally`` () =
    let ns = root <@ fun (x: Tensor) -> (use y = x.exp() in y.sum()) @> |> nodes |> Seq.map kind |> List.ofSeq
    Assert.Contains("TryFinally", ns)
    Assert.Contains("Let", ns)

[<Fact>]
let ``a compact signature becomes the JSON signature`` () =
    let d = Serializer.serialize [ { Name = "f"; Expr = <@ fun (x: Tensor) (s: float32) -> x * s @>
                                     Signature = Some "float32[N, 768, ?], float32, w=float16[4]"; NonZero = [| 0 |] } ]
    let s = (parse d.Json |> prop "entries").[0] |> prop "signature"
    Assert.Equal("""{"dtype":"float32","shape":["N",768,null],"nonzero":true}""",
                 (s |> prop "params").[0].GetRawText().Replace(" ", "").Replace("\n", ""))
    Assert.Equal("float32", (s |> prop "params").[1] |> prop "scalar" |> str)
    Assert.Equal("float16", s |> prop "captures" |> prop "w" |> prop "dtype" |> str)

[<Fact>]
let ``a bad signature is a clear error`` () =
    let ex = Assert.Throws<Serializer.SerializeError>(fun () ->
        Serializer.serialize [ { Name = "f"; Expr = <@ fun (x: Tensor) -> x @>; Signature = Some "float33[3]"; NonZero = [||] } ] |> ignore)
    Assert.Contains("float33", ex.Data0)

[<Fact>]
let ``loops, mutation and conditions keep their shape`` () =
    let ks =
        root <@ fun (x: Tensor) ->
                    let mutable h = x
                    for i in 0 .. 3 do
                        if i % 2 = 0 then h <- h * 2.0f
                    while h.sum().item<float32>() > 1.0f do
                        h <- h / 2.0f
                    h @>
        |> nodes |> Seq.map kind |> Set.ofSeq
    for k in [ "ForIntegerRangeLoop"; "WhileLoop"; "IfThenElse"; "VarSet"; "Sequential"; "Let" ] do
        Assert.Contains(k, ks)

[<Fact>]
let ``a live captured tensor's range has the live values' mean and deviation, inside their extremes`` () =
    // floats: mean ± √3·σ (a uniform draw with the live values' moments), clamped to [min, max];
    // constants [c, c]; integers [min, max + 1) (ids stay inside their table)
    let w = torch.tensor([| -4.0f; 0.5f; 1.0f; 1.5f; 2.0f; 3.0f |])
    let one = torch.ones(3L)
    let ids = torch.tensor([| 2L; 7L; 5L |])
    let d = Serializer.serialize [ { Name = "f"; Expr = <@ fun (x: Tensor) -> (x * w + one).index_select(0L, ids) @>
                                     Signature = Some "float32[6]"; NonZero = [||] } ]
    let caps = (parse d.Json |> prop "entries").[0] |> prop "signature" |> prop "captures"
    let range n = let r = caps |> prop n |> prop "range" in r.[0].GetDouble(), r.[1].GetDouble()
    let mean = 4.0 / 6.0
    let sd = sqrt ([ -4.0; 0.5; 1.0; 1.5; 2.0; 3.0 ] |> List.averageBy (fun v -> (v - mean) ** 2.0))
    let lo, hi = range "w"
    Assert.Equal(mean - sqrt 3.0 * sd, lo, 5)
    Assert.True(lo > -4.0, sprintf "%g" lo)
    Assert.Equal(3.0, hi)   // mean + √3·σ = 4.53 lies past the largest value
    Assert.Equal((1.0, 1.0), range "one")
    Assert.Equal((2.0, 8.0), range "ids")
