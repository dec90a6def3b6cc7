// Kgen.compile: a quotation as an F# function over TorchSharp tensors, specialized once per
// input signature, with live captures (issue 10's API, first part).
module Kgen.Tests.CompileTests

open Xunit
open TorchSharp
open type TorchSharp.torch.nn
open Kgen

type Tensor = torch.Tensor

let close (a: Tensor) (b: Tensor) = a.allclose(b, rtol = 1e-5, atol = 1e-5)

[<Fact>]
let ``a compiled quotation is a curried function over tensors`` () =
    let f = Kgen.compile <@ fun (x: Tensor) (b: Tensor) -> (x + b).gelu() @>
    let x, b = torch.randn(6L, 768L), torch.randn(768L)
    Assert.True(close (f x b) ((x + b).gelu()))

[<Fact>]
let ``one specialization per size pattern, none on a repeated signature`` () =
    use c = new Compile.Compiled<_>(<@ fun (x: Tensor) (b: Tensor) -> x * b + 1.0f @>)
    let f = c.Function
    let b = torch.randn(5L)
    for _ in 1..3 do f (torch.randn(4L, 5L)) b |> ignore
    Assert.Equal(1, c.Specializations)
    // sizes are symbolic: another batch size, a transposed (strided) input reuse it
    for rows in [ 7L; 2L; 300L ] do
        let x = torch.randn(rows, 5L)
        let y = f x b
        Assert.Equal<int64[]>([| rows; 5L |], y.shape)
        Assert.True(close y (x * b + 1.0f))
    let xt = torch.randn(5L, 4L).t()
    Assert.True(close (f xt b) (xt * b + 1.0f))
    Assert.Equal(1, c.Specializations)
    // a new pattern specializes once: a size-1 dim (broadcast), equal sizes, a new dtype
    f (torch.randn(1L, 5L)) b |> ignore
    Assert.Equal(2, c.Specializations)
    f (torch.randn(5L, 5L)) b |> ignore
    Assert.Equal(3, c.Specializations)
    let xd = torch.randn(4L, 5L, dtype = torch.float64)
    Assert.True(close (f xd b) (xd * b + 1.0f))
    Assert.Equal(4, c.Specializations)
    for _ in 1..3 do
        f (torch.randn(9L, 5L)) b |> ignore
        f (torch.randn(1L, 5L)) b |> ignore
        f (torch.randn(6L, 6L)) (torch.randn(6L)) |> ignore
    Assert.Equal(4, c.Specializations)
    let st = c.CompileStats
    Assert.Equal(4L, st.Specializations)
    Assert.True(st.EmuCompiles + st.EmuCacheHits >= 4L, sprintf "%A" st)

[<Fact>]
let ``exact sizes when asked`` () =
    let opts = { FastPath.Options.Default with DynamicSizes = false }
    use c = new Compile.Compiled<_>(<@ fun (x: Tensor) -> x.exp() @>, opts)
    for n in [ 3L; 4L; 3L; 4L ] do Assert.True(close (c.Function (torch.randn(n))) (torch.randn(n).exp()) |> ignore; true)
    Assert.Equal(2, c.Specializations)

[<Fact>]
let ``float32 products: split-TF32 by default at float32 accuracy, TF32 and SIMT when asked`` () =
    // 256 x 512 x 256 takes the tensor-core tier on the emulated H100 (kgen explain:
    // matmul.tc32.f32.3xtf32; smaller products are folded into a dot per output). CPU tensors
    // run on kgen's CPU device (no tensor cores: float32 FMAs whatever the mode) unless
    // Options.Emulator asks for the emulator, as here.
    let a, b = torch.randn(256L, 512L), torch.randn(512L, 256L)
    let reference = (a.to_type(torch.float64).matmul(b.to_type(torch.float64)))
    let relErr (t: Tensor) =
        ((t.to_type(torch.float64) - reference).norm().item<float>()) / reference.norm().item<float>()
    let run mode =
        use c = new Compile.Compiled<_>(<@ fun (x: Tensor) (y: Tensor) -> x.matmul(y) @>,
                                        { FastPath.Options.Default with Float32Matmul = mode; Emulator = true })
        relErr (c.Function a b)
    let torchErr = relErr (a.matmul(b))
    let split, tf32, simt = run FastPath.Float32Matmul.SplitTF32, run FastPath.Float32Matmul.TF32, run FastPath.Float32Matmul.Simt
    Assert.True(split <= 2.0 * torchErr + 1e-9, sprintf "split-TF32 %g vs torch %g" split torchErr)
    Assert.True(simt <= 2.0 * torchErr + 1e-9, sprintf "SIMT %g vs torch %g" simt torchErr)
    Assert.True(tf32 > 1e-5 && tf32 < 5e-3, sprintf "TF32 %g: one TF32 product, ~1e-3" tf32)

[<Fact>]
let ``tupled parameters, scalar parameters and tuple results`` () =
    let g = Kgen.compile <@ fun (x: Tensor, y: Tensor) -> x * y @>
    let x, y = torch.randn(3L, 4L), torch.randn(3L, 4L)
    Assert.True(close (g (x, y)) (x * y))
    let h = Kgen.compile <@ fun (x: Tensor) (s: float32) -> ((x * s).relu(), x.sum(1L)) @>
    let a, b = h x 2.0f
    Assert.True(close a ((x * 2.0f).relu()))
    Assert.True(close b (x.sum(1L)))

[<Fact>]
let ``captured tensors and module parameters are read live at each call`` () =
    let w = torch.ones(4L)
    let f = Kgen.compile <@ fun (x: Tensor) -> x * w @>
    let x = torch.randn(2L, 4L)
    Assert.True(close (f x) x)
    w.mul_(torch.tensor 3.0f) |> ignore
    Assert.True(close (f x) (x * 3.0f))
    let ln = LayerNorm([| 4L |])
    let g = Kgen.compile <@ fun (x: Tensor) -> x --> ln @>
    Assert.True(close (g x) (ln.forward x))
    use _ = torch.no_grad()
    ln.weight.mul_(torch.tensor 2.0f) |> ignore
    Assert.True(close (g x) (ln.forward x))

[<Fact>]
let ``a bad call raises kgen's diagnostic`` () =
    let f = Kgen.compile <@ fun (x: Tensor) (b: Tensor) -> x + b @>
    let e = Assert.Throws<Runtime.KgenException>(fun () -> f (torch.randn(3L, 4L)) (torch.randn(5L)) |> ignore)
    Assert.Contains("cannot be broadcast", e.Message)
    Assert.Contains("CompileTests.fs:", e.Message)

[<Fact>]
let ``handles left to the finalizer are freed in a safe order`` () =
    // contexts, modules and compiled entries of dropped functions are finalized in any order;
    // a child keeps its parent's native handle alive until it is freed
    for _ in 1..5 do
        let f = Kgen.compile <@ fun (x: Tensor) -> x.exp() @>
        f (torch.randn(3L)) |> ignore
        System.GC.Collect()
        System.GC.WaitForPendingFinalizers()
    System.GC.Collect()
    System.GC.WaitForPendingFinalizers()

[<Fact>]
let ``every parameter and result shape`` () =
    let x, y = torch.randn(3L, 4L), torch.randn(3L, 4L)
    // three and four curried parameters, numbers of each kind
    let f3 = Kgen.compile <@ fun (x: Tensor) (y: Tensor) (s: float) -> x * s + y @>
    Assert.True(close (f3 x y 0.5) (x * 0.5 + y))
    let f4 = Kgen.compile <@ fun (x: Tensor) (n: int) (m: int64) (flag: bool) -> if flag then x * float32 n else x + float32 m @>
    Assert.True(close (f4 x 3 7L true) (x * 3.0f))
    Assert.True(close (f4 x 3 7L false) (x + 7.0f))
    // five curried parameters and a tupled pair mixed with a curried one (reflection closures)
    let f5 = Kgen.compile <@ fun (a: Tensor) (b: Tensor) (c: Tensor) (d: Tensor) (e: Tensor) -> a + b + c + d + e @>
    Assert.True(close (f5 x y x y x) (x + y + x + y + x))
    let ft = Kgen.compile <@ fun (a: Tensor, b: Tensor) (s: float32) -> a * b * s @>
    Assert.True(close (ft (x, y) 2.0f) (x * y * 2.0f))
    // a number result, and a tuple with a number inside
    let fs = Kgen.compile <@ fun (x: Tensor) -> x.sum().item<float32>() @>
    Assert.Equal(x.sum().item<float32>(), fs x, 3)
    let fm = Kgen.compile <@ fun (x: Tensor) -> (x.amax(), x.mean().item<float32>(), x.exp()) @>
    let a, m, e = fm x
    Assert.True(close a (x.amax()))
    Assert.Equal(x.mean().item<float32>(), m, 4)
    Assert.True(close e (x.exp()))

[<Fact>]
let ``strided, sliced, broadcast and zero- or one-sized inputs`` () =
    let f = Kgen.compile <@ fun (x: Tensor) (b: Tensor) -> (x * 2.0f + b).tanh() @>
    let big = torch.randn(9L, 40L)
    let b = torch.randn(32L)
    let inputs =
        [ torch.randn(32L, 7L).t() // transposed
          big.narrow(1L, 5L, 32L) // storage offset, row stride 40
          big.[torch.TensorIndex.Slice(0L, 9L, 2L), torch.TensorIndex.Slice(1L, 33L)] // stepped rows
          torch.randn(1L, 32L).expand(6L, 32L) // stride 0
          torch.randn(0L, 32L)
          torch.randn(1L, 32L) ]
    for x in inputs do
        let want = (x.contiguous() * 2.0f + b).tanh()
        let got = f x b
        Assert.Equal<int64[]>(want.shape, got.shape)
        Assert.True(close got want)
    // a sliced bias (storage offset) and a broadcast one
    let b2 = torch.randn(64L).narrow(0L, 7L, 32L)
    let cols = big.narrow(1L, 0L, 32L)
    Assert.True(close (f cols b2) ((cols * 2.0f + b2).tanh()))

[<Fact>]
let ``each dtype kgen supports`` () =
    let f = Kgen.compile <@ fun (x: Tensor) (y: Tensor) -> x * y + x @>
    let types =
        [ torch.float16; torch.bfloat16; torch.float32; torch.float64; torch.int8; torch.uint8; torch.int16; torch.int32; torch.int64 ]
    for dt in types do
        let x = torch.randint(-5L, 6L, [| 4L; 5L |]).to_type(dt)
        let y = torch.randint(-5L, 6L, [| 5L |]).to_type(dt)
        let got = f x y
        let want = x * y + x
        Assert.Equal(want.dtype, got.dtype)
        Assert.True(got.to_type(torch.float64).allclose(want.to_type(torch.float64), rtol = 1e-2, atol = 1e-2), sprintf "%O" dt)
    let g = Kgen.compile <@ fun (x: Tensor) (y: Tensor) -> x.logical_xor(y) @>
    let a, b = torch.rand(7L).gt(torch.tensor 0.5f), torch.rand(7L).gt(torch.tensor 0.5f)
    Assert.True((g a b).eq(a.logical_xor(b)).all().item<bool>())

[<Fact>]
let ``concurrent calls from threads`` () =
    use c = new Compile.Compiled<_>(<@ fun (x: Tensor) (b: Tensor) -> (x + b).relu() * 3.0f @>)
    let f = c.Function
    let b = torch.randn(16L)
    let failures = System.Collections.Concurrent.ConcurrentBag<string>()
    System.Threading.Tasks.Parallel.For(0, 8, fun i ->
        for k in 1..15 do
            let x = torch.randn(int64 (1 + (i * 7 + k) % 9), 16L)
            let y = f x b
            if not (close y ((x + b).relu() * 3.0f)) then failures.Add(sprintf "thread %d call %d" i k))
    |> ignore
    Assert.Empty(failures)
    Assert.Equal(2, c.Specializations) // rows of 1 and rows of 2..9

[<Fact>]
let ``bad tensors and bad calls raise located errors`` () =
    let f = Kgen.compile <@ fun (x: Tensor) (b: Tensor) -> x * b @>
    let x = torch.randn(3L, 4L)
    let e = Assert.Throws<Runtime.KgenException>(fun () -> f x (torch.randn(3L, 4L, dtype = torch.complex64)) |> ignore)
    Assert.Contains("argument 2 has dtype ComplexFloat32", e.Message)
    let d = torch.randn(4L)
    d.Dispose()
    let e = Assert.Throws<Runtime.KgenException>(fun () -> f x d |> ignore)
    Assert.Contains("argument 2 has been disposed", e.Message)
    let e = Assert.Throws<Runtime.KgenException>(fun () -> f x null |> ignore)
    Assert.Contains("argument 2 is null", e.Message)
    let e = Assert.Throws<Runtime.KgenException>(fun () -> f x (torch.empty([| 4L |], device = torch.META)) |> ignore)
    Assert.Contains("argument 2 is on a META device", e.Message)
    // a shape the ops reject, with the F# position of the op; the function still works after
    let e = Assert.Throws<Runtime.KgenException>(fun () -> f x (torch.randn(5L)) |> ignore)
    Assert.Contains("cannot be broadcast", e.Message)
    Assert.Contains("CompileTests.fs:", e.Message)
    Assert.True(e.IsInputError)
    let b = torch.randn(4L)
    Assert.True(close (f x b) (x * b))

[<Fact>]
let ``a module's forward, its parameters read live`` () =
    let model =
        Sequential(("norm", LayerNorm([| 8L |]) :> torch.nn.Module<Tensor, Tensor>), ("act", GELU() :> torch.nn.Module<Tensor, Tensor>))
    model.eval() |> ignore
    let f = Kgen.compileModule model
    let x = torch.randn(5L, 8L)
    Assert.True(close (f x) (model.forward x))
    use _ = torch.no_grad()
    for p in model.parameters() do p.add_(torch.tensor 0.25f) |> ignore
    Assert.True(close (f x) (model.forward x))
    let x3 = torch.randn(3L, 8L)
    Assert.True(close (f x3) (model.forward x3))

[<Fact>]
let ``outputs live in the caller's dispose scope, like any TorchSharp result`` () =
    let f = Kgen.compile <@ fun (x: Tensor) -> x.exp() @>
    let x = torch.randn(3L)
    let kept, dropped =
        use _ = torch.NewDisposeScope()
        let a = f x
        let b = f x
        a.MoveToOuterDisposeScope(), b
    Assert.False(kept.IsInvalid)
    Assert.True(dropped.IsInvalid)
    Assert.True(close kept (x.exp()))

[<Fact>]
let ``a view to a product of sizes: one specialization, the output sized per call`` () =
    // sizes are duck symbols per call (s0, s1, s2): -1 is the product s0*s1, flatten's s0*s1*s2
    use c = new Compile.Compiled<_>(<@ fun (x: Tensor) -> (x.view(-1L, x.shape.[2]) * 2.0f, x.flatten()) @>)
    for rows in [ 5L; 2L; 9L ] do
        let x = torch.randn(rows, 3L, 4L)
        let (a, b) = c.Function x
        Assert.Equal<int64[]>([| rows * 3L; 4L |], a.shape)
        Assert.Equal<int64[]>([| rows * 12L |], b.shape)
        Assert.True(close a (x.view(-1L, 4L) * 2.0f))
        Assert.True(close b (x.flatten()))
    Assert.Equal(1, c.Specializations)
    // the sizes read from x.shape, multiplied, in a linear's rows
    let w = torch.randn(5L, 4L)
    let g = Kgen.compile <@ fun (x: Tensor) ->
                                let b, t = x.shape.[0], x.shape.[1]
                                torch.nn.functional.linear(x.view(b * t, 4L), w).view(b, t, 5L) @>
    for (b, t) in [ (2L, 3L); (1L, 7L) ] do
        let x = torch.randn(b, t, 4L)
        Assert.True(close (g x) (torch.nn.functional.linear(x, w)))

[<Fact>]
let ``an LSTM over a sequence keeps its weights' packed panels across the steps, and sees weights changed in place`` () =
    // the CPU device's products read W_hh's panels packed at the call's first step (runtime/exec_keep.c);
    // the caller then scales every parameter in place (the same tensors): the next call packs afresh
    torch.manual_seed 5L |> ignore
    use m = torch.nn.LSTM(16L, 64L)
    m.eval () |> ignore
    use c = new Compile.Compiled<_>(<@ fun (x: Tensor) -> let struct (o, _, _) = m.forward (x, System.Nullable<struct (Tensor * Tensor)>()) in o @>)
    use _g = torch.no_grad ()
    let x = torch.randn(12L, 8L, 16L)
    let native () = let struct (o, _, _) = m.forward (x, System.Nullable()) in o
    let near (a: Tensor) (b: Tensor) = a.allclose(b, rtol = 1e-4, atol = 1e-5)
    Assert.True(near (c.Function x) (native ()))
    let kept = c.Engine.LastRunStats.PanelsKept
    Assert.True(kept >= 11UL, sprintf "%d launches read kept panels" kept)
    for p in m.parameters () do p.mul_((0.5).ToScalar()) |> ignore
    Assert.True(near (c.Function x) (native ()), "the weights scaled in place")
    Assert.Equal(kept, c.Engine.LastRunStats.PanelsKept)

[<Fact>]
let ``an RNN cell over duck sizes folds its small products at run time: one launch a step`` () =
    // RNNCell: no chunk, so the entry generalizes over every size (duck symbols, the weights' too);
    // its two products are tiled at compile time and folded per run where small (the fold plan)
    let cell = RNNCell(6L, 10L)
    use c = new Compile.Compiled<_>(<@ fun (x: Tensor) (h: Tensor) -> cell.forward(x, h) @>)
    let x, h = torch.randn(3L, 6L), torch.randn(3L, 10L)
    Assert.True(close (c.Function x h) (cell.forward(x, h)))
    Assert.Equal(1UL, c.Engine.LastRunStats.Launches)
    // a batch too big to fold (80000·10·6 multiply-adds in one product > 2^22): the tiled kernels
    let xb, hb = torch.randn(80000L, 6L), torch.randn(80000L, 10L)
    Assert.True(close (c.Function xb hb) (cell.forward(xb, hb)))
    Assert.True(c.Engine.LastRunStats.Launches > 1UL, sprintf "%d launches" c.Engine.LastRunStats.Launches)
    Assert.Equal(1, c.Specializations)
