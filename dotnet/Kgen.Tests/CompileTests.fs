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
let ``one specialization per input signature`` () =
    use c = new Compile.Compiled<_>(<@ fun (x: Tensor) (b: Tensor) -> x * b + 1.0f @>)
    let f = c.Function
    let b = torch.randn(5L)
    for _ in 1..3 do f (torch.randn(4L, 5L)) b |> ignore
    Assert.Equal(1, c.Specializations)
    f (torch.randn(7L, 5L)) b |> ignore
    Assert.Equal(2, c.Specializations)
    let xt = torch.randn(5L, 4L).t()
    Assert.True(close (f xt b) (xt * b + 1.0f))
    Assert.Equal(3, c.Specializations)

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
