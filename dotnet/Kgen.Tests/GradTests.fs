// Gradients through TorchSharp's autograd (issue 24): a compiled function's outputs carry a
// grad_fn when grad mode is on and an argument or captured parameter requires grad; backward()
// runs kgen's backward kernels and fills .grad as eager TorchSharp does.
module Kgen.Tests.GradTests

open System
open Xunit
open TorchSharp
open type TorchSharp.torch.nn
open Kgen

type Tensor = torch.Tensor

let close (a: Tensor) (b: Tensor) = a.allclose(b, rtol = 1e-4, atol = 1e-5)

let leaf (t: Tensor) = t.detach().clone().requires_grad_(true)

[<Fact>]
let ``backward fills the arguments' grad as eager autograd`` () =
    let f = Kgen.compile <@ fun (x: Tensor) (w: Tensor) (b: Tensor) -> ((x.matmul(w) + b).gelu() * x.sum(1L, true)).sum() @>
    let x0, w0, b0 = torch.randn(5L, 8L), torch.randn(8L, 3L), torch.randn(3L)
    let x, w, b = leaf x0, leaf w0, leaf b0
    let y = f x w b
    Assert.True(y.requires_grad, "the output is attached to the autograd graph")
    y.backward()
    let xe, we, be = leaf x0, leaf w0, leaf b0
    let ye = ((xe.matmul(we) + be).gelu() * xe.sum(1L, true)).sum()
    ye.backward()
    Assert.True(close y ye)
    Assert.True(close x.grad xe.grad, "x.grad")
    Assert.True(close w.grad we.grad, "w.grad")
    Assert.True(close b.grad be.grad, "b.grad")

type Mlp() as this =
    inherit Module<Tensor, Tensor>("mlp")
    let fc1 = Linear(8L, 16L)
    let fc2 = Linear(16L, 4L)
    do this.RegisterComponents()
    [<ReflectedDefinition>]
    override _.forward(x) = fc2.forward(fc1.forward(x).relu()).log_softmax(1L)

[<Fact>]
let ``a compiled module's parameters get their grad; the optimizer steps them`` () =
    torch.manual_seed(7L) |> ignore
    let m = new Mlp()
    let e = new Mlp()
    e.load_state_dict(m.state_dict()) |> ignore
    let f = Kgen.compileModule m
    let x, t = torch.randn(6L, 8L), torch.randint(0L, 4L, [| 6L |])
    let opt = torch.optim.SGD(m.parameters(), 0.1)
    let opte = torch.optim.SGD(e.parameters(), 0.1)
    for _ in 1 .. 3 do
        opt.zero_grad()
        opte.zero_grad()
        let loss = functional.nll_loss(f x, t)
        loss.backward()
        let losse = functional.nll_loss(e.forward x, t)
        losse.backward()
        Assert.True(close loss losse, sprintf "loss %f vs %f" (loss.item<float32>()) (losse.item<float32>()))
        for (n, p), (_, pe) in Seq.zip (m.named_parameters()) (e.named_parameters()) do
            Assert.True(not (isNull p.grad), sprintf "%s has a grad" n)
            Assert.True(close p.grad pe.grad, sprintf "%s.grad" n)
        opt.step() |> ignore
        opte.step() |> ignore

[<Fact>]
let ``under no_grad nothing is recorded`` () =
    let f = Kgen.compile <@ fun (x: Tensor) -> x.tanh() * 2.0f @>
    let x = torch.randn(4L).requires_grad_(true)
    use _ = torch.no_grad()
    let y = f x
    Assert.False(y.requires_grad)

[<Fact>]
let ``inputs that do not require grad give a plain call`` () =
    let f = Kgen.compile <@ fun (x: Tensor) -> x.tanh() * 2.0f @>
    let y = f (torch.randn(4L))
    Assert.False(y.requires_grad)

[<Fact>]
let ``a function kgen cannot differentiate fails at the call, not silently`` () =
    let f = Kgen.compile <@ fun (x: Tensor) -> Kgen.Ops.map (fun (v: float32) -> v * v) x @>
    let x = torch.randn(4L).requires_grad_(true)
    let e = Assert.Throws<Runtime.KgenException>(fun () -> f x |> ignore)
    Assert.Contains("map lambda", e.Message)
    // without gradients it runs
    use _ = torch.no_grad()
    Assert.True(close (f x) (x * x))

[<Fact>]
let ``dropout's backward redraws the forward's mask, call by call`` () =
    let f = Kgen.compile <@ fun (x: Tensor) -> functional.dropout(x, 0.5, true) * 3.0f @>
    let x1, x2 = leaf (torch.rand(64L) + 1.0f), leaf (torch.rand(64L) + 1.0f)
    let y1 = f x1
    let y2 = f x2 // a second call draws other bits before the first backward
    y1.sum().backward()
    y2.sum().backward()
    for x, y in [ x1, y1; x2, y2 ] do
        let kept = y.detach().ne(torch.zeros_like(y)).to_type(torch.float32)
        Assert.True(close x.grad (kept * 6.0f), "the gradient is 3 / (1 - p) where the forward kept, 0 where it dropped")
    Assert.False(close (y1.detach().ne(torch.zeros_like(y1))) (y2.detach().ne(torch.zeros_like(y2))), "two calls, two masks")

[<Fact>]
let ``integer outputs are not differentiable; the floating ones are`` () =
    let f = Kgen.compile <@ fun (x: Tensor) -> x.softmax(1L), x.argmax(1L) @>
    let x = leaf (torch.randn(3L, 5L))
    let p, i = f x
    Assert.True(p.requires_grad)
    Assert.False(i.requires_grad)
    let w = torch.randn(3L, 5L)
    (p * w).sum().backward()
    let xe = leaf x
    (xe.softmax(1L) * w).sum().backward()
    Assert.True(close x.grad xe.grad)

[<Fact>]
let ``the loss functions' gradients match eager`` () =
    let f = Kgen.compile <@ fun (x: Tensor) (t: Tensor) -> functional.cross_entropy(x, t, label_smoothing = 0.1) + functional.mse_loss(x.softmax(1L), x.sigmoid()) @>
    let x0, t = torch.randn(7L, 5L), torch.randint(0L, 5L, [| 7L |])
    let x, xe = leaf x0, leaf x0
    (f x t).backward()
    (functional.cross_entropy(xe, t, label_smoothing = 0.1) + functional.mse_loss(xe.softmax(1L), xe.sigmoid())).backward()
    Assert.True(close x.grad xe.grad)

[<Fact>]
let ``a new batch size reuses the gradient specialization`` () =
    use c = new Compile.Compiled<_>(<@ fun (x: Tensor) (w: Tensor) -> (x.matmul(w)).tanh().sum() @>)
    let w = leaf (torch.randn(6L, 4L))
    for rows in [ 3L; 9L; 5L ] do
        w.grad <- null
        let x = torch.randn(rows, 6L)
        c.Function x w |> fun y -> y.backward()
        let we = leaf w
        (x.matmul(we)).tanh().sum().backward()
        Assert.True(close w.grad we.grad, sprintf "rows %d" rows)
    Assert.Equal(1, c.Specializations)
