// Kgen.Runtime on TorchSharp tensors through libkgen (the emulator for CPU tensors): results
// against TorchSharp, strided and sliced inputs without copies, captures, dtypes, every error
// as a KgenException with kgen's diagnostic, concurrent calls on one context.
module Kgen.Tests.RuntimeTests

open System.IO
open Xunit
open TorchSharp
open Kgen
open Kgen.Tests.Support

type Tensor = torch.Tensor

let example name = File.ReadAllText(Path.Combine(repoRoot, "examples", name + ".json"))

let allclose (a: Tensor) (b: Tensor) = a.allclose(b, rtol = 1.3e-6, atol = 1e-5)

let gelu (ctx: Runtime.Context) =
    ctx.Load(example "bcast_bias_gelu")

[<Fact>]
let ``an entry runs on TorchSharp tensors and matches TorchSharp`` () =
    use ctx = new Runtime.Context()
    use m = gelu ctx
    Assert.Equal<string list>([ "bcast_bias_gelu" ], m.Entries)
    let x = torch.randn(5L, 768L)
    let b = torch.randn(768L)
    use c = m.Specialize("bcast_bias_gelu", [ x; b ], [])
    Assert.Equal(1, c.Kernels)
    let out = c.Run([ x; b ], []) |> List.exactlyOne
    Assert.True(allclose out ((x + b).gelu()))

[<Fact>]
let ``transposed, sliced and broadcast inputs run without a copy`` () =
    use ctx = new Runtime.Context()
    use m = gelu ctx
    let xt = torch.randn(768L, 7L).t() // strides [1, 7]
    let big = torch.randn(7L, 800L)
    let xs = big.narrow(1L, 3L, 768L) // storage offset 3, row stride 800
    let b = torch.randn(1L, 768L).expand(7L, 768L).select(0L, 2L) // a view
    for x in [ xt; xs ] do
        Assert.False(x.is_contiguous())
        use c = m.Specialize("bcast_bias_gelu", [ x; b ], [])
        let out = c.Run([ x; b ], []) |> List.exactlyOne
        Assert.True(allclose out ((x.contiguous() + b.contiguous()).gelu()))

[<Fact>]
let ``captured tensors are bound by name, size 0 and 1 work`` () =
    use ctx = new Runtime.Context()
    use m = ctx.Load(example "capture_weight_mul")
    for rows in [ 0L; 1L; 3L ] do
        let x = torch.randn(rows, 768L)
        let w = torch.randn(768L)
        use c = m.Specialize("capture_weight_mul", [ x ], [ "w", w ])
        let out = c.Run([ x ], [ "w", w ]) |> List.exactlyOne
        Assert.Equal<int64[]>([| rows; 768L |], out.shape)
        Assert.True(allclose out (x * w))

[<Fact>]
let ``float64, float16, bfloat16 and int32 tensors`` () =
    use ctx = new Runtime.Context()
    use m = gelu ctx
    for dt in [ torch.ScalarType.Float64; torch.ScalarType.Float16; torch.ScalarType.BFloat16 ] do
        let x = torch.randn(3L, 768L).to_type(dt)
        let b = torch.randn(768L).to_type(dt)
        use c = m.Specialize("bcast_bias_gelu", [ x; b ], [])
        let out = c.Run([ x; b ], []) |> List.exactlyOne
        Assert.Equal(dt, out.dtype)
        let want = (x.to_type(torch.ScalarType.Float32) + b.to_type(torch.ScalarType.Float32)).gelu()
        Assert.True(out.to_type(torch.ScalarType.Float32).allclose(want, rtol = 2e-2, atol = 2e-2), string dt)
    use mi = ctx.Load(example "capture_weight_mul")
    let xi = torch.randint(-9L, 10L, [| 4L; 768L |], dtype = torch.ScalarType.Int32)
    let wi = torch.randint(-9L, 10L, [| 768L |], dtype = torch.ScalarType.Int32)
    use ci = mi.Specialize("capture_weight_mul", [ xi ], [ "w", wi ])
    let out = ci.Run([ xi ], [ "w", wi ]) |> List.exactlyOne
    Assert.Equal(torch.ScalarType.Int32, out.dtype)
    Assert.True(out.eq(xi * wi).all().item<bool>())

[<Fact>]
let ``bad inputs are KgenExceptions carrying kgen's diagnostic`` () =
    use ctx = new Runtime.Context()
    use m = gelu ctx
    // a shape the entry's ops reject: located in the F# source
    let e = Assert.Throws<Runtime.KgenException>(fun () -> m.Specialize("bcast_bias_gelu", [ torch.randn(2L, 5L); torch.randn(768L) ], []) |> ignore)
    Assert.True(e.IsInputError)
    Assert.Contains("bcast_bias_gelu.fs:", e.Message)
    Assert.Contains("cannot be broadcast", e.Message)
    // no such entry, wrong argument count, a disposed tensor, an unsupported dtype, bad JSON
    Assert.Throws<Runtime.KgenException>(fun () -> m.Specialize("nope", [ torch.randn(768L) ], []) |> ignore) |> ignore
    Assert.Throws<Runtime.KgenException>(fun () -> m.Specialize("bcast_bias_gelu", [ torch.randn(768L) ], []) |> ignore) |> ignore
    let d = torch.randn(768L)
    d.Dispose()
    Assert.Throws<Runtime.KgenException>(fun () -> m.Specialize("bcast_bias_gelu", [ d; torch.randn(768L) ], []) |> ignore) |> ignore
    let cplx = torch.randn(768L).to_type(torch.ScalarType.ComplexFloat32)
    Assert.Throws<Runtime.KgenException>(fun () -> m.Specialize("bcast_bias_gelu", [ cplx; cplx ], []) |> ignore) |> ignore
    let bad = Assert.Throws<Runtime.KgenException>(fun () -> ctx.Load("{\"format\": \"kgen-quotation\", ") |> ignore)
    Assert.Contains("malformed JSON at byte", bad.Message)

[<Fact>]
let ``concurrent calls on one context are serialized and correct`` () =
    use ctx = new Runtime.Context()
    use m = gelu ctx
    let x = torch.randn(9L, 768L)
    let b = torch.randn(768L)
    let want = (x + b).gelu()
    let results =
        // 8 threads, each specializing, running and freeing: kg_specialize_for, kg_run and
        // kg_compiled_free (its kernels unloaded from the context's emulator) interleave unless
        // the context's lock serializes them (once it did not, and this crashed the test host)
        [| for _ in 1..8 -> async { return [ for _ in 1..6 -> (use c = m.Specialize("bcast_bias_gelu", [ x; b ], []) in c.Run([ x; b ], []).Head) ] } |]
        |> Async.Parallel |> Async.RunSynchronously
    for rs in results do
        for r in rs do
            Assert.True(allclose r want)
    // what serializes them: one lock object for the context's life (a property `= obj ()`
    // made a new object per access, so every `lock` took a different one)
    Assert.Same(ctx.Gate, ctx.Gate)

[<Fact>]
let ``Kgen.check runs kgen, the F# function and the twin on the caller's tensors`` () =
    let x = torch.randn(4L, 5L)
    let rows = Kgen.check <@ fun (x: Tensor) (s: float32) -> ((x * s).relu(), x.sum(1L)) @> [ box x; box 2.0f ]
    Assert.Equal(2, rows.Length)
    for r in rows do
        Assert.True(r.Kgen.Ok && r.TorchScript.Ok, sprintf "%A" r)
    Assert.Equal<int64[]>([| 4L |], rows.[1].Shape)
