// Training loops (issue 24): real models trained with kgen's forward and backward kernels inside
// TorchSharp's autograd and optimizers, against the same loop run eagerly.
//
//   MNIST    TorchSharpExamples' model (examples/models/mnist.fs) and its loop — zero_grad,
//            forward, nll_loss, backward, step — with SGD, then Adam, on fixed synthetic batches
//   GPT      ModestGpt (examples/models/modestgpt.fs) at small sizes, a few hundred Adam steps
//            learning a repeating token pattern, the loss a cross_entropy over the logits
//
// Each loop runs three times from the same weights on the same batches: kgen (float32: the
// forward and the loss one compiled function, so kgen runs forward and backward), eager float32,
// and eager float64. The curves agree within what float32 rounding explains: at every step
// |L_kgen − L_eager| ≤ 4 · |L_eager − L_float64| + 1e-5 · |L_eager| + 1e-6 — the float64 run drifts from
// the float32 one exactly as far as float32 rounding moves a trajectory, and a reordering of
// float32 sums (kgen's fused kernels sum in other orders, some in float64) moves it as far. The
// dropout modules are set to evaluation for the comparison (eager TorchSharp and kgen draw other
// bits); a separate run trains with dropout on and checks the loss falls.
module Kgen.Tests.TrainingTests

open System
open Xunit
open TorchSharp
open type TorchSharp.torch.nn
open Kgen

type Tensor = torch.Tensor

/// Every step's losses agree (see the top of the file); returns the largest ratio of the
/// difference to its bound.
let curvesAgree (what: string) (k: float[]) (e: float[]) (d: float[]) =
    let mutable worst = 0.0
    for i in 0 .. k.Length - 1 do
        let bound = 4.0 * abs (e.[i] - d.[i]) + 1e-5 * abs e.[i] + 1e-6
        let diff = abs (k.[i] - e.[i])
        worst <- max worst (diff / bound)
        Assert.True(diff <= bound, sprintf "%s: step %d: kgen %.9g, eager %.9g, float64 %.9g (difference %.3g, bound %.3g)" what i k.[i] e.[i] d.[i] diff bound)
    worst

let private copyWeights (src: Module) (dst: Module) =
    use _ = torch.no_grad()
    for (n, p), (_, q) in Seq.zip (src.named_parameters()) (dst.named_parameters()) do
        q.copy_(p) |> ignore

/// Sets every Dropout module of m to evaluation (the identity).
let private noDropout (m: Module) =
    for sub in m.modules() do
        if sub :? TorchSharp.Modules.Dropout then sub.eval() |> ignore

[<Fact>]
let ``MNIST: kgen's training loop (SGD, then Adam) follows eager's`` () =
    torch.manual_seed(4L) |> ignore
    let mk () = new Models.Mnist.Model("mnist", torch.CPU)
    let mk64 () = (mk ()).``to``(torch.float64)
    let k, e, d = mk (), mk (), mk ()
    copyWeights k e
    copyWeights k d
    let d = d.``to``(torch.float64)
    for m in [ k :> Module; e; d ] do
        m.train() |> ignore
        noDropout m
    // the example's loop body: prediction, NLLLoss, backward, step — the forward and the loss in
    // one kgen function
    let step = Kgen.compile <@ fun (x: Tensor) (t: Tensor) -> functional.nll_loss(k.forward(x), t) @>
    let g = new torch.Generator(11UL, torch.CPU)
    let batches = [ for _ in 1 .. 3 -> torch.rand([| 4L; 1L; 28L; 28L |], generator = g), torch.randint(0L, 10L, [| 4L |], generator = g) ]
    let run (opt: torch.optim.Optimizer) (loss: Tensor -> Tensor -> Tensor) n =
        [| for i in 0 .. n - 1 ->
               let x, t = batches.[i % batches.Length]
               opt.zero_grad()
               let l = loss x t
               l.backward()
               opt.step() |> ignore
               l.to_type(torch.float64).item<float>() |]
    let lk = run (torch.optim.SGD(k.parameters(), 0.05)) step 6
    let le = run (torch.optim.SGD(e.parameters(), 0.05)) (fun x t -> functional.nll_loss(e.forward x, t)) 6
    let ld = run (torch.optim.SGD(d.parameters(), 0.05)) (fun x t -> functional.nll_loss(d.forward (x.to_type(torch.float64)), t)) 6
    curvesAgree "MNIST, SGD" lk le ld |> ignore
    let lk2 = run (torch.optim.Adam(k.parameters(), 1e-3)) step 6
    let le2 = run (torch.optim.Adam(e.parameters(), 1e-3)) (fun x t -> functional.nll_loss(e.forward x, t)) 6
    let ld2 = run (torch.optim.Adam(d.parameters(), 1e-3)) (fun x t -> functional.nll_loss(d.forward (x.to_type(torch.float64)), t)) 6
    curvesAgree "MNIST, Adam" lk2 le2 ld2 |> ignore
    Assert.True(lk2.[lk2.Length - 1] < lk.[0], sprintf "the loss fell: %A then %A" lk lk2)

[<Fact>]
let ``MNIST with dropout on: kgen trains`` () =
    torch.manual_seed(5L) |> ignore
    let k = new Models.Mnist.Model("mnist", torch.CPU)
    k.train() |> ignore
    let step = Kgen.compile <@ fun (x: Tensor) (t: Tensor) -> functional.nll_loss(k.forward(x), t) @>
    let g = new torch.Generator(12UL, torch.CPU)
    let x, t = torch.rand([| 4L; 1L; 28L; 28L |], generator = g), torch.randint(0L, 10L, [| 4L |], generator = g)
    let opt = torch.optim.Adam(k.parameters(), 1e-3)
    let losses =
        [| for _ in 1 .. 8 ->
               opt.zero_grad()
               let l = step x t
               l.backward()
               opt.step() |> ignore
               l.item<float32>() |]
    Assert.True(losses.[losses.Length - 1] < losses.[0] * 0.8f, sprintf "the loss fell: %A" losses)

[<Fact>]
let ``ModestGpt: a few hundred Adam steps, kgen's loss curve follows eager's`` () =
    let config: Models.ModestGpt.ModelConfig = { VocabSize = 8; BlockSize = 8; NumEmbed = 16; NumLayer = 1; NumHead = 2; Dropout = 0.0 }
    torch.manual_seed(6L) |> ignore
    let k, e, d = new Models.ModestGpt.Gpt(config), new Models.ModestGpt.Gpt(config), new Models.ModestGpt.Gpt(config)
    copyWeights k e
    copyWeights k d
    let d = d.``to``(torch.float64)
    for m in [ k :> Module; e; d ] do m.train() |> ignore
    // the task: a repeating pattern of tokens, predict the next one
    let seqs = torch.tensor([| for b in 0L .. 3L do for i in 0L .. 8L -> (3L * i + b) % 8L |]).view(4L, 9L)
    let x, y = seqs.narrow(1L, 0L, 8L).contiguous(), seqs.narrow(1L, 1L, 8L).contiguous()
    let step = Kgen.compile <@ fun (x: Tensor) (y: Tensor) -> functional.cross_entropy(k.forward(x).view(-1L, 8L), y.view(-1L)) @>
    let run (m: Module) (opt: torch.optim.Optimizer) (loss: unit -> Tensor) n =
        [| for _ in 1 .. n ->
               opt.zero_grad()
               let l = loss ()
               l.backward()
               opt.step() |> ignore
               l.to_type(torch.float64).item<float>() |]
    let n = 200
    let lk = run k (torch.optim.Adam(k.parameters(), 3e-3)) (fun () -> step x y) n
    let le = run e (torch.optim.Adam(e.parameters(), 3e-3)) (fun () -> functional.cross_entropy(e.forward(x).view(-1L, 8L), y.view(-1L))) n
    let ld = run d (torch.optim.Adam(d.parameters(), 3e-3)) (fun () -> functional.cross_entropy(d.forward(x).view(-1L, 8L), y.view(-1L))) n
    curvesAgree "ModestGpt, Adam" lk le ld |> ignore
    Assert.True(lk.[n - 1] < lk.[0] * 0.5, sprintf "the loss fell: %.4f to %.4f" lk.[0] lk.[n - 1])
