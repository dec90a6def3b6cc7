// perf/dotnet: the host cost of one hot call of a compiled F# function (Kgen.Compile, the .NET
// fast path of issue 10) beside TorchSharp eager running the very same F# function op by op.
//
// Each program is written once, as an F# function marked [<ReflectedDefinition>]: eager calls
// the function itself; kgen compiles a quotation that calls it (the serializer inlines
// reflected definitions), so both run exactly the same code. Per program and size:
//   - eager: the function on CPU tensors inside a TorchSharp DisposeScope (every intermediate
//     and the result freed at the end of the call, the idiom TorchSharp recommends);
//   - kgen on the null device (FastPath.Options.NullDevice: kg_run does all its host work,
//     the launches return at once): kgen's host cost of a hot call, result disposed;
//   - the same with Engine.Profiling on: lookup (metadata reads, signature key, lookup),
//     outputs (torch.empty) and run (kg_run: binding, schedule, launches), and the rest (the
//     closure, lock, argument setters, profiling's own timestamps, disposing the output);
//   - kgen on its CPU device (the default options on CPU tensors: the same CUDA C compiled by
//     the host C compiler for this CPU, docs/cpu.md), for reference; its output is also
//     compared with eager's;
//   - managed bytes allocated per hot call (GC.GetAllocatedBytesForCurrentThread).
// The baseline of "a hot call costs no more than one eager op" is one eager `x + y` on the
// same size. Times: one warm-up pass over every program first (so tiered compilation has
// promoted the shared hot path), then per measurement a warm-up of --warm-ms and the median
// over --reps batches of as many calls as fit in --batch-ms; Stopwatch wall time and this
// thread's CPU time (CLOCK_THREAD_CPUTIME_ID: robust to other processes on a shared machine);
// ns per call. libtorch runs with one intra-op thread (--threads): on a small loaded machine
// its OpenMP team waits for a free core, which costs milliseconds per op.
// --rnn instead: nn.LSTM / nn.GRU over whole sequences (issue 23; input 64, hidden 128, batch 8;
// 1 and 2 layers, bidirectional; T = 64..512, --steps) compiled with Kgen.compile on kgen's CPU
// device beside TorchSharp's native modules (libtorch's CPU kernels) on the same input, both under
// no_grad: wall and CPU ms, their ratio, kgen's host cost on the null device, launches and plan
// steps per call, outputs compared (docs/perf_cpu.md, "LSTM and GRU sequences"). Run it with
// KGEN_CPU_THREADS=1 beside libtorch's one thread.
// --models instead: every model forward of examples/models (issue 25) on CPU tensors — the
// entry's quotation compiled by the fast path (its captures: the modules' weights) on kgen's CPU
// device beside the same F# forward run by TorchSharp eager (Kgen.Eval walking the quotation:
// libtorch 2.10's CPU kernels op by op), same inputs, both under no_grad, every result disposed;
// wall ms per call, the ratio, outputs compared. Run it with KGEN_CPU_THREADS equal to --threads.
// A benchmark, not a test: exits 0 whatever the numbers (1 when a program fails to compile or
// run, 2 on bad arguments).
//
//   dotnet run -c Release --project perf/dotnet -- [--reps N] [--batch-ms M] [--warm-ms M]
//                                                  [--threads N] [--no-large] [--markdown]
//                                                  [--rnn [--steps 64,128,256,512]] [--models [--entry NAME]]
module Bench.Program

#nowarn "9"

open System
open System.Diagnostics
open System.IO
open System.Runtime.InteropServices
open System.Threading
open System.Text.Json
open TorchSharp
open Kgen

type Tensor = torch.Tensor

/// The programs, written once. The comments count the TorchSharp calls eager makes (views
/// like x.[t] and unsqueeze included; the shape read of a loop bound not).
module Programs =
    /// 1 op
    [<ReflectedDefinition>]
    let add1 (x: Tensor) (y: Tensor) = x + y

    /// 5 ops: bias add, gelu, scale, residual, relu
    [<ReflectedDefinition>]
    let chain5 (x: Tensor) (b: Tensor) =
        let h = (x + b).gelu()
        (h * 0.5f + x).relu()

    /// 20 ops: a pointwise chain over two inputs (add/sub/mul/div, tanh, sigmoid, exp, clamp,
    /// relu, abs, sqrt, neg)
    [<ReflectedDefinition>]
    let chain20 (x: Tensor) (y: Tensor) =
        let a = x * y + 1.0f // 2
        let b = a.tanh() * 0.5f // 4
        let c = (b + y).sigmoid() // 6
        let d = c * x - y // 8
        let e = d.clamp((-3.0f).ToScalar(), 3.0f.ToScalar()).exp() // 10
        let f = e / (e + 1.0f) // 12
        let g = (f * a).relu() + b // 15
        let h = g.abs().sqrt() // 17
        (h * c - d).neg() // 20

    /// A pointwise recurrence over the T steps of x [T, N, H]: 4 ops per step (x.[t], *, +, tanh)
    [<ReflectedDefinition>]
    let rnn (x: Tensor) (a: Tensor) (h0: Tensor) =
        let mutable h = h0
        for t in 0 .. int x.shape.[0] - 1 do
            h <- (h * a + x.[int64 t]).tanh()
        h

    /// An Elman RNN (as examples/cf_rnn_elman: the matrix products written as broadcast
    /// products and sums): 10 ops per step
    [<ReflectedDefinition>]
    let elman (x: Tensor) (wx: Tensor) (wh: Tensor) (b: Tensor) (h0: Tensor) =
        let mutable h = h0
        for t in 0 .. int x.shape.[0] - 1 do
            h <- torch.tanh ((x.[int64 t].unsqueeze(-1L) * wx).sum(1L) + (h.unsqueeze(-1L) * wh).sum(1L) + b)
        h

// ---------------------------------------------------------------------------------------------
// options

let mutable reps = 7
let mutable batchMs = 40.0
let mutable warmMs = 200.0
let mutable large = true
let mutable markdown = false
let mutable threads = 1
let mutable rnn = false
let mutable rnnSteps = [ 64L; 128L; 256L; 512L ]
let mutable models = false
let mutable modelEntry: string option = None

// ---------------------------------------------------------------------------------------------
// timing

let nsPerTick = 1e9 / float Stopwatch.Frequency

[<Struct; StructLayout(LayoutKind.Sequential)>]
type Timespec =
    val mutable Sec: int64
    val mutable Nsec: int64

[<DllImport("libc", EntryPoint = "clock_gettime")>]
extern int clock_gettime(int clock, Timespec& ts)

/// libtorch's allocation of an empty tensor and its release, called directly (what
/// torch.empty wraps), to split torch.empty's cost.
[<DllImport("LibTorchSharp")>]
extern nativeint THSTensor_empty(nativeint psizes, int length, sbyte scalarType, int deviceType, int deviceIndex, byte requiresGrad)

[<DllImport("LibTorchSharp")>]
extern void THSTensor_dispose(nativeint handle)

/// This thread's CPU time (CLOCK_THREAD_CPUTIME_ID), ns: what a batch cost this thread, not
/// counting the time other processes held the core.
let threadCpuNs () =
    let mutable ts = Timespec()
    clock_gettime (3, &ts) |> ignore
    float ts.Sec * 1e9 + float ts.Nsec

let median (a: float[]) =
    let s = Array.sort a
    let n = s.Length
    if n = 0 then nan elif n % 2 = 1 then s.[n / 2] else (s.[n / 2 - 1] + s.[n / 2]) / 2.0

/// ns per call over n calls: wall (Stopwatch) and this thread's CPU time.
let timeCalls2 (n: int) (f: unit -> unit) =
    let c0 = threadCpuNs ()
    let t0 = Stopwatch.GetTimestamp()
    for _ in 1..n do
        f ()
    let t1 = Stopwatch.GetTimestamp()
    let c1 = threadCpuNs ()
    struct (float (t1 - t0) * nsPerTick / float n, (c1 - c0) / float n)

let timeCalls (n: int) (f: unit -> unit) =
    let struct (w, _) = timeCalls2 n f
    w

/// Warms up (warmMs, at least 3 calls) and returns how many calls fill a batch of batchMs.
let calibrate (f: unit -> unit) =
    let sw = Stopwatch.StartNew()
    let mutable calls = 0
    while calls < 3 || sw.Elapsed.TotalMilliseconds < warmMs do
        f ()
        calls <- calls + 1
    let perCallNs = sw.Elapsed.TotalMilliseconds * 1e6 / float calls
    max 3 (int (batchMs * 1e6 / perCallNs))

let settle () =
    GC.Collect()
    GC.WaitForPendingFinalizers()
    GC.Collect()

/// Median ns per call over `reps` batches: wall, and thread CPU time.
let measure2 (f: unit -> unit) =
    let n = calibrate f
    let b =
        Array.init reps (fun _ ->
            settle ()
            timeCalls2 n f)
    struct (b |> Array.map (fun (struct (w, _)) -> w) |> median, b |> Array.map (fun (struct (_, c)) -> c) |> median)

/// Median wall ns per call over `reps` batches.
let measure (f: unit -> unit) =
    let struct (w, _) = measure2 f
    w

/// Managed bytes allocated per call on this thread (after a warm-up).
let allocPerCall (n: int) (f: unit -> unit) =
    for _ in 1..10 do
        f ()
    let a0 = GC.GetAllocatedBytesForCurrentThread()
    for _ in 1..n do
        f ()
    float (GC.GetAllocatedBytesForCurrentThread() - a0) / float n

// ---------------------------------------------------------------------------------------------
// programs as cases

type Case =
    { Name: string
      Size: string
      /// the [rows, cols] of the baseline op it is compared with
      Key: int64 * int64
      Ops: int
      Eager: unit -> unit
      Null: unit -> unit
      Emu: unit -> unit
      NullEngine: FastPath.Engine
      /// kgen's CPU-device output vs eager's (allclose)
      Check: unit -> bool
      Specializations: unit -> int * int
      /// what the null-device and the CPU-device engines compiled
      CompileStats: unit -> FastPath.CompileStats * FastPath.CompileStats
      Dispose: unit -> unit }

let nullOpts = { FastPath.Options.Default with NullDevice = true }

let close (a: Tensor) (b: Tensor) = a.allclose(b, rtol = 1e-4, atol = 1e-5)

let scoped (f: unit -> Tensor) () =
    use _s = torch.NewDisposeScope()
    f () |> ignore

let case2 key name size ops (q: Quotations.Expr<Tensor -> Tensor -> Tensor>) (eager: Tensor -> Tensor -> Tensor) (a: Tensor) (b: Tensor) =
    let cn = new Compile.Compiled<_>(q, nullOpts)
    let ce = new Compile.Compiled<_>(q)
    let fn, fe = cn.Function, ce.Function
    { Name = name
      Size = size
      Key = key
      Ops = ops
      Eager = scoped (fun () -> eager a b)
      Null = fun () -> (fn a b).Dispose()
      Emu = fun () -> (fe a b).Dispose()
      NullEngine = cn.Engine
      Check =
        fun () ->
            use _s = torch.NewDisposeScope()
            close (fe a b) (eager a b)
      Specializations = fun () -> cn.Specializations, ce.Specializations
      CompileStats = fun () -> cn.CompileStats, ce.CompileStats
      Dispose = fun () -> (cn :> IDisposable).Dispose(); (ce :> IDisposable).Dispose() }

let case3 key name size ops (q: Quotations.Expr<Tensor -> Tensor -> Tensor -> Tensor>) (eager: Tensor -> Tensor -> Tensor -> Tensor) (a: Tensor) (b: Tensor) (c: Tensor) =
    let cn = new Compile.Compiled<_>(q, nullOpts)
    let ce = new Compile.Compiled<_>(q)
    let fn, fe = cn.Function, ce.Function
    { Name = name
      Size = size
      Key = key
      Ops = ops
      Eager = scoped (fun () -> eager a b c)
      Null = fun () -> (fn a b c).Dispose()
      Emu = fun () -> (fe a b c).Dispose()
      NullEngine = cn.Engine
      Check =
        fun () ->
            use _s = torch.NewDisposeScope()
            close (fe a b c) (eager a b c)
      Specializations = fun () -> cn.Specializations, ce.Specializations
      CompileStats = fun () -> cn.CompileStats, ce.CompileStats
      Dispose = fun () -> (cn :> IDisposable).Dispose(); (ce :> IDisposable).Dispose() }

let dims (s: int64[]) = String.Join("×", s)

/// The five programs on [rows, cols] float32 tensors.
let cases (rows: int64) (cols: int64) =
    torch.manual_seed 1L |> ignore
    let size = dims [| rows; cols |]
    let x, y = torch.randn(rows, cols), torch.randn(rows, cols)
    let b = torch.randn(cols)
    let rnnT = 5L
    let xs = torch.randn(rnnT, rows, cols)
    let a = torch.rand(cols)
    let h0 = torch.randn(rows, cols)
    // the Elman cell: H = I = 32 at any size (its broadcast products are [N, 32, 32])
    let eT, eI, eH = 2L, 32L, 32L
    let ex = torch.randn(eT, rows, eI)
    let wx, wh, eb = torch.randn(eI, eH) * 0.2f, torch.randn(eH, eH) * 0.2f, torch.randn(eH)
    let eh0 = torch.randn(rows, eH)
    [ case2 (rows, cols) "add (1 op)" size 1 <@ fun x y -> Programs.add1 x y @> Programs.add1 x y
      case2 (rows, cols) "bias-gelu-scale-residual-relu (5 ops)" size 5 <@ fun x b -> Programs.chain5 x b @> Programs.chain5 x b
      case2 (rows, cols) "pointwise chain (20 ops)" size 20 <@ fun x y -> Programs.chain20 x y @> Programs.chain20 x y
      case3 (rows, cols) "rnn loop, 5 steps × 4 ops" (sprintf "%d×%s" rnnT size) (4 * int rnnT) <@ fun x a h0 -> Programs.rnn x a h0 @> Programs.rnn xs a h0
      case2
          (rows, cols)
          "Elman rnn, 2 steps × 10 ops"
          (sprintf "%d×%d×%d, H=%d" eT rows eI eH)
          (10 * int eT)
          <@ fun x h0 -> Programs.elman x wx wh eb h0 @>
          (fun x h0 -> Programs.elman x wx wh eb h0)
          ex
          eh0 ]

// ---------------------------------------------------------------------------------------------
// output

let table (headers: string list) (rows: string list list) =
    if markdown then
        printfn "| %s |" (String.Join(" | ", headers))
        printfn "|%s|" (String.Join("|", headers |> List.mapi (fun i _ -> if i = 0 then "---" else "--:")))
        for r in rows do
            printfn "| %s |" (String.Join(" | ", r))
    else
        let all = headers :: rows
        let w = headers |> List.mapi (fun i _ -> all |> List.map (fun r -> (List.item i r).Length) |> List.max)
        for r in all do
            printfn "%s" (String.Join("  ", r |> List.mapi (fun i c -> if i = 0 then c.PadRight(w.[i]) else c.PadLeft(w.[i]))))
    printfn ""

let f0 (v: float) = sprintf "%.0f" v
let f1 (v: float) = if v >= 100.0 then sprintf "%.0f" v else sprintf "%.1f" v

let say (s: string) =
    if markdown then printfn "- %s" s else printfn "%s" s

let machine () =
    let cpu =
        try
            File.ReadLines "/proc/cpuinfo"
            |> Seq.tryFind (fun l -> l.StartsWith "model name")
            |> Option.map (fun l -> l.Substring(l.IndexOf ':' + 1).Trim())
            |> Option.defaultValue "?"
        with _ -> "?"
    sprintf
        "%s, %d logical CPUs; %s; .NET %s; TorchSharp %s, libtorch intra-op threads %d"
        cpu
        Environment.ProcessorCount
        (RuntimeInformation.OSDescription)
        (Environment.Version.ToString())
        (typeof<Tensor>.Assembly.GetName().Version.ToString())
        (torch.get_num_threads ())

// ---------------------------------------------------------------------------------------------

type Row =
    { C: Case
      EagerNs: float
      EagerCpu: float
      NullNs: float
      NullCpu: float
      Lookup: float
      Outputs: float
      Run: float
      Other: float
      EmuNs: float
      AllocKgen: float
      AllocEager: float
      Ok: bool
      Stats: Kgen.Native.KgRunStats }

let measureCase (c: Case) =
    let ok = c.Check()
    let struct (eagerNs, eagerCpu) = measure2 c.Eager
    let struct (nullNs, nullCpu) = measure2 c.Null
    // the profile: per batch, every phase's mean per call; medians over batches
    let n = calibrate c.Null
    let e = c.NullEngine
    let prof =
        Array.init reps (fun _ ->
            settle ()
            e.Profiling <- true
            let wall = timeCalls n c.Null
            let p = e.Profile
            e.Profiling <- false
            let ns t = float t * nsPerTick / float p.Calls
            let l, o, r = ns p.LookupTicks, ns p.OutputTicks, ns p.RunTicks
            [| l; o; r; wall - l - o - r |])
    let col i = prof |> Array.map (fun a -> a.[i]) |> median
    let stats = e.LastRunStats
    let emuNs = measure c.Emu
    let allocK = allocPerCall 2000 c.Null
    let allocE = allocPerCall 200 c.Eager
    { C = c
      EagerNs = eagerNs
      EagerCpu = eagerCpu
      NullNs = nullNs
      NullCpu = nullCpu
      Lookup = col 0
      Outputs = col 1
      Run = col 2
      Other = col 3
      EmuNs = emuNs
      AllocKgen = allocK
      AllocEager = allocE
      Ok = ok
      Stats = stats }

// ---------------------------------------------------------------------------------------------
// --rnn: nn.LSTM / nn.GRU over whole sequences (issue 23), kgen's compiled module on its CPU
// device beside TorchSharp's native module (libtorch's CPU kernels), same inputs, same run

type RnnCase =
    { Module: string
      Layers: int64
      Bidir: bool
      /// TorchSharp's native forward under no_grad, results disposed
      Native: Tensor -> unit
      /// kgen's compiled forward on its CPU device, results disposed
      Kgen: Tensor -> unit
      /// the same on the null device: kgen's host cost (plan loop, bindings, launches issued)
      Null: Tensor -> unit
      /// kgen's outputs (output, h_n[, c_n]) against the native module's, allclose
      Check: Tensor -> bool
      Engine: FastPath.Engine
      Dispose: unit -> unit }

let rnnI, rnnH, rnnN = 64L, 128L, 8L

let closeAll (a: Tensor list) (b: Tensor list) =
    List.forall2 (fun (x: Tensor) (y: Tensor) -> x.shape = y.shape && x.allclose(y, rtol = 1e-4, atol = 1e-5)) a b

let lstmCase (layers: int64) (bidir: bool) =
    torch.manual_seed 3L |> ignore
    let m = torch.nn.LSTM(rnnI, rnnH, numLayers = layers, bidirectional = bidir)
    m.eval () |> ignore
    let q = <@ fun (x: Tensor) -> let struct (o, h, c) = m.forward (x, Nullable<struct (Tensor * Tensor)>()) in (o, h, c) @>
    let ce = new Compile.Compiled<_>(q)
    let cn = new Compile.Compiled<_>(q, nullOpts)
    let fe, fn = ce.Function, cn.Function
    let native (x: Tensor) =
        use _g = torch.no_grad ()
        let struct (o, h, c) = m.forward (x, Nullable())
        [ o; h; c ]
    let drop (ts: Tensor list) = for t in ts do t.Dispose()
    { Module = "LSTM"; Layers = layers; Bidir = bidir
      Native = native >> drop
      Kgen = fun x -> let (o, h, c) = fe x in drop [ o; h; c ]
      Null = fun x -> let (o, h, c) = fn x in drop [ o; h; c ]
      Check = fun x -> let (o, h, c) = fe x in let r = closeAll [ o; h; c ] (native x) in r
      Engine = ce.Engine
      Dispose = fun () -> (ce :> IDisposable).Dispose(); (cn :> IDisposable).Dispose(); m.Dispose() }

let gruCase (layers: int64) (bidir: bool) =
    torch.manual_seed 4L |> ignore
    let m = torch.nn.GRU(rnnI, rnnH, numLayers = layers, bidirectional = bidir)
    m.eval () |> ignore
    let q = <@ fun (x: Tensor) -> let struct (o, h) = m.forward (x, null) in (o, h) @>
    let ce = new Compile.Compiled<_>(q)
    let cn = new Compile.Compiled<_>(q, nullOpts)
    let fe, fn = ce.Function, cn.Function
    let native (x: Tensor) =
        use _g = torch.no_grad ()
        let struct (o, h) = m.forward (x, null)
        [ o; h ]
    let drop (ts: Tensor list) = for t in ts do t.Dispose()
    { Module = "GRU"; Layers = layers; Bidir = bidir
      Native = native >> drop
      Kgen = fun x -> let (o, h) = fe x in drop [ o; h ]
      Null = fun x -> let (o, h) = fn x in drop [ o; h ]
      Check = fun x -> let (o, h) = fe x in closeAll [ o; h ] (native x)
      Engine = ce.Engine
      Dispose = fun () -> (ce :> IDisposable).Dispose(); (cn :> IDisposable).Dispose(); m.Dispose() }

/// The --rnn benchmark: per module and T, native ms, kgen CPU-device ms, their ratio, kgen's
/// host cost (null device) and the launches a call makes.
let rnnBench (steps: int64 list) =
    say (sprintf "machine: %s; KGEN_CPU_THREADS=%s" (machine ()) (match Environment.GetEnvironmentVariable "KGEN_CPU_THREADS" with null -> "(unset: all CPUs)" | v -> v))
    say (sprintf "timing: median of %d batches of ~%.0f ms after a %.0f ms warm-up, wall and this thread's CPU time; float32, input %d, hidden %d, batch %d, sequence-first, no initial states (zeros); both under no_grad; every result disposed" reps batchMs warmMs rnnI rnnH rnnN)
    printfn ""
    let cases = [ lstmCase 1L false; lstmCase 2L false; lstmCase 1L true; gruCase 1L false; gruCase 2L false; gruCase 1L true ]
    let rows =
        [ for c in cases do
              for t in steps do
                  torch.manual_seed (100L + t) |> ignore
                  let x = torch.randn (t, rnnN, rnnI)
                  // inference on both sides: the parameters require grad, and kgen's entry with
                  // a loop has no gradient (the fast path would take its autograd route)
                  use _g = torch.no_grad ()
                  let sw = Stopwatch.StartNew()
                  let ok = c.Check x
                  let first = sw.Elapsed.TotalSeconds
                  let struct (nat, natCpu) = measure2 (fun () -> c.Native x)
                  let struct (kg, kgCpu) = measure2 (fun () -> c.Kgen x)
                  c.Kgen x
                  let st = c.Engine.LastRunStats
                  let struct (host, _) = measure2 (fun () -> c.Null x)
                  x.Dispose()
                  let dirs = if c.Bidir then 2L else 1L
                  yield c, t, ok, first, nat, natCpu, kg, kgCpu, host, st, float (t * c.Layers * dirs) ]
    for c in cases do
        c.Dispose()
    let ms (ns: float) = sprintf "%.3f" (ns / 1e6)
    table
        [ "module"; "layers"; "bidir"; "T"; "native ms (CPU)"; "kgen CPU device ms (CPU)"; "kgen ÷ native (CPU time)"; "kgen host ms (null device)"
          "host µs per step·dir"; "launches"; "launches per step·dir"; "plan steps"; "outputs match"; "first call s" ]
        [ for (c, t, ok, first, nat, natCpu, kg, kgCpu, host, st, stepDirs) in rows ->
              [ c.Module; string c.Layers; (if c.Bidir then "yes" else "no"); string t
                sprintf "%s (%s)" (ms nat) (ms natCpu); sprintf "%s (%s)" (ms kg) (ms kgCpu)
                sprintf "%.2f× (%.2f×)" (kg / nat) (kgCpu / natCpu); ms host; sprintf "%.2f" (host / 1e3 / stepDirs)
                string st.Launches; sprintf "%.2f" (float st.Launches / stepDirs); string st.PlanSteps
                (if ok then "yes" else "NO"); sprintf "%.1f" first ] ]
    let ratios = rows |> List.map (fun (_, _, _, _, nat, _, kg, _, _, _, _) -> kg / nat)
    say (sprintf "geometric mean kgen ÷ native (wall): %.2f×; range %.2f× – %.2f×" (exp (List.averageBy log ratios)) (List.min ratios) (List.max ratios))
    let bad = rows |> List.filter (fun (_, _, ok, _, _, _, _, _, _, _, _) -> not ok)
    if bad.IsEmpty then say "every kgen output (output, h_n[, c_n]) matches the native module's (allclose rtol 1e-4, atol 1e-5)"
    else for (c, t, _, _, _, _, _, _, _, _, _) in bad do say (sprintf "MISMATCH: %s layers %d bidir %b at T = %d" c.Module c.Layers c.Bidir t)

// ---------------------------------------------------------------------------------------------
// --models: the model forwards of examples/models on CPU tensors, kgen's CPU device beside
// TorchSharp eager (issue 25)

let modelsDir = Path.Combine(__SOURCE_DIRECTORY__, "..", "..", "examples", "models")

/// One entry: its random inputs (the signature's sizes and ranges), eager (the F# forward) and
/// kgen (its quotation through the fast path) as calls whose results are disposed, and their
/// outputs compared with eager's under autograd: the largest difference over the largest magnitude
/// of the reference's output, per output (float32 forwards summed in other orders: ~1e-6; "yes"
/// up to 1e-4).
let modelCase (asm: Reflection.Assembly) (fs: string) (root: JsonElement) (i: int) (en: Serializer.Entry) =
    let pars, _ = Check.signatureOf (root.GetProperty("entries").[i].GetProperty("signature")) Map.empty
    use g = new torch.Generator(17UL, torch.CPU)
    let args =
        pars |> List.map (function
            | Check.TensorParam(dt, shape, nz, r) -> box (Check.randomTensorIn g dt shape nz r)
            | Check.ScalarParam dt -> failwithf "%s: a number parameter (%s)" en.Name dt)
    let f = Eval.run en.Expr
    let d = Serializer.serialize [ { en with Name = "f"; Signature = None } ]
    let caps = d.Captures |> List.choose (fun c -> match c.Value with :? Tensor as t -> Some(c.Name, t) | _ -> None)
    let engine = new FastPath.Engine(d.Json, "f", Compile.kindsOfType en.Expr.Type, caps |> List.map fst |> Array.ofList,
                                     (let v = caps |> List.map snd |> Array.ofList in fun () -> v),
                                     FastPath.Options.Default)
    let core = Compile.Core(engine, typeof<obj>)
    let kgenOuts () =
        List.iteri (fun j a -> core.SetObj(j, a)) args
        core.Invoke()
        [ for k in 0 .. engine.OutputCount - 1 -> engine.Output k ]
    let eager () =
        use _s = torch.NewDisposeScope()
        Eval.applyAll f args |> ignore
    let kgen () = for t in kgenOuts () do t.Dispose()
    let err (a: Tensor) (b: Tensor) =
        if a.shape <> b.shape then infinity
        else
            let a, b = a.to_type torch.ScalarType.Float64, b.to_type torch.ScalarType.Float64
            (a - b).abs().max().item<float>() / max 1e-30 (b.abs().max().item<float>())
    let errs (xs: Tensor list) (ys: Tensor list) = if xs.Length <> ys.Length then infinity else List.map2 err xs ys |> List.fold max 0.0
    /// kgen's outputs and eager's under no_grad, each against eager with autograd on (detached):
    /// libtorch's inference path is not always the same computation (its LSTM under no_grad
    /// differs from its own autograd path by 6 % on lstm_tagger, measured)
    let check () =
        let ours = kgenOuts ()
        let fast = Eval.applyAll f args |> Check.flatten
        let reference =
            use _e = torch.enable_grad ()
            Eval.applyAll f args |> Check.flatten |> List.map (fun t -> t.detach())
        let e = errs ours reference, errs fast reference
        for t in ours @ fast @ reference do t.Dispose()
        e
    Path.GetFileNameWithoutExtension fs, en.Name, eager, kgen, check, engine

let modelsBench () =
    say (sprintf "machine: %s; libtorch threads %d; KGEN_CPU_THREADS=%s" (machine ()) threads (match Environment.GetEnvironmentVariable "KGEN_CPU_THREADS" with null -> "(unset: all CPUs)" | v -> v))
    say (sprintf "timing: median of %d batches of ~%.0f ms after a %.0f ms warm-up, wall time; both under no_grad; eager inside a DisposeScope per call, kgen's results disposed" reps batchMs warmMs)
    printfn ""
    let asm = Reflection.Assembly.Load "Examples"
    use _g = torch.no_grad ()
    let rows =
        [ for fs in Directory.GetFiles(modelsDir, "*.fs") |> Array.sort do
              let doc = Collect.documentOfSource asm fs
              use root = JsonDocument.Parse(doc.Json, JsonDocumentOptions(MaxDepth = Serializer.maxDepth))
              let entries = Collect.entriesOfSource Collect.zeros None asm fs
              // not the entries in training mode: their forward updates the modules' statistics
              for (i, en) in List.indexed entries |> List.filter (fun (_, en) -> not (en.Name.EndsWith "_train") && (modelEntry.IsNone || modelEntry = Some en.Name)) do
                  let model, name, eager, kgen, check, engine = modelCase asm fs root.RootElement i en
                  let sw = Stopwatch.StartNew()
                  let ok = check ()
                  let first = sw.Elapsed.TotalSeconds
                  let struct (e, _) = measure2 eager
                  let struct (k, _) = measure2 kgen
                  let st = engine.LastRunStats
                  (engine :> IDisposable).Dispose()
                  yield model, name, ok, first, e, k, st.Launches ]
    let ms (ns: float) = sprintf "%.3f" (ns / 1e6)
    table [ "model"; "entry"; "eager (TorchSharp) ms"; "kgen CPU device ms"; "kgen ÷ eager"; "launches"; "kgen's outputs (difference)"; "eager's under no_grad"; "first call s" ]
        [ for (model, name, (ek, ee), first, e, k, launches) in rows ->
              [ model; name; ms e; ms k; sprintf "%.2f×" (k / e); string launches; sprintf "%s (%.1e)" (if ek <= 1e-4 then "match" else "differ") ek
                sprintf "%s (%.1e)" (if ee <= 1e-4 then "match" else "differ") ee; sprintf "%.1f" first ] ]
    let ratios = rows |> List.map (fun (_, _, _, _, e, k, _) -> k / e)
    say (sprintf "%d forwards: %d within 1.5× of eager, %d faster; geometric mean kgen ÷ eager %.2f×" ratios.Length (ratios |> List.filter (fun r -> r <= 1.5) |> List.length)
             (ratios |> List.filter (fun r -> r < 1.0) |> List.length) (exp (List.averageBy log ratios)))
    say "the differences: the largest over the largest magnitude of eager's outputs with autograd on (the reference; float32 sums in other orders: ~1e-6)"
    for (model, name, (ek, ee), _, _, _, _) in rows do
        if ek > 1e-4 then say (sprintf "kgen's %s %s differs from eager's by %.2e (judge it with the three-way check's rmse rule against float64: tools/kgen-fsharp check)" model name ek)
        if ee > 1e-4 then say (sprintf "eager's own %s %s under no_grad differs from its autograd path by %.2e" model name ee)

type Baseline =
    { Wall: float
      Cpu: float
      Scoped: float
      Alloc: float
      Empty: float
      Dispose: float
      EmptyAlloc: float }

let usage =
    "usage: dotnet run -c Release --project perf/dotnet -- [--reps N] [--batch-ms M] [--warm-ms M] [--threads N] [--no-large] [--markdown] [--rnn [--steps 64,128,256,512]] [--models [--entry NAME]]"

[<EntryPoint>]
let main argv =
    let rec parse args =
        match args with
        | "--reps" :: n :: rest ->
            reps <- max 1 (int n)
            parse rest
        | "--batch-ms" :: n :: rest ->
            batchMs <- max 1.0 (float n)
            parse rest
        | "--threads" :: n :: rest ->
            threads <- max 1 (int n)
            parse rest
        | "--warm-ms" :: n :: rest ->
            warmMs <- max 1.0 (float n)
            parse rest
        | "--no-large" :: rest ->
            large <- false
            parse rest
        | "--markdown" :: rest ->
            markdown <- true
            parse rest
        | "--rnn" :: rest ->
            rnn <- true
            parse rest
        | "--models" :: rest ->
            models <- true
            parse rest
        | "--entry" :: e :: rest ->
            modelEntry <- Some e
            parse rest
        | "--steps" :: ts :: rest ->
            rnnSteps <- ts.Split(',') |> Array.map int64 |> List.ofArray
            parse rest
        | ("-h" | "--help") :: _ ->
            printfn "%s" usage
            false
        | [] -> true
        | a :: _ ->
            eprintfn "unknown argument %s\n%s" a usage
            false
    if not (parse (List.ofArray argv)) then
        2
    else
        try
            let total = Stopwatch.StartNew()
            torch.set_num_threads threads
            if rnn then
                rnnBench rnnSteps
                say (sprintf "total time %.0f s" total.Elapsed.TotalSeconds)
                exit 0
            if models then
                modelsBench ()
                say (sprintf "total time %.0f s" total.Elapsed.TotalSeconds)
                exit 0
            say (sprintf "machine: %s" (machine ()))
            say (
                sprintf
                    "timing: median of %d batches of ~%.0f ms (calls per batch from a %.0f ms warm-up), Stopwatch wall time and this thread's CPU time; eager inside a DisposeScope per call, kgen's result disposed; sizes float32"
                    reps
                    batchMs
                    warmMs
            )
            printfn ""
            let sizes = [ 64L, 256L; 4L, 8L ]
            // every program compiled (the CPU device's objects built or found in the kernel cache)
            let all = sizes |> List.map (fun (r, c) -> cases r c)
            // one warm-up over everything first: tiered compilation promotes the shared hot
            // path (FastPath, TorchSharp) only once no new code is being jitted for a while
            for _ in 1..2 do
                for cs in all do
                    for k in cs do
                        for f in [ k.Eager; k.Null ] do
                            let sw = Stopwatch.StartNew()
                            while sw.Elapsed.TotalMilliseconds < warmMs / 4.0 do
                                f ()
                        k.Emu()
                Thread.Sleep 500
            // the baseline: one eager op on the same size; the output allocation alone
            let baselines =
                sizes
                |> List.map (fun (r, c) ->
                    let x, y = torch.randn(r, c), torch.randn(r, c)
                    let op () = (x + y).Dispose()
                    let struct (w, cpu) = measure2 op
                    // torch.empty and Dispose apart: per batch, 250 times 8 tensors made, then disposed
                    let made = Array.zeroCreate<Tensor> 8
                    let shape = [| r; c |]
                    let split =
                        Array.init (reps + 1) (fun _ ->
                            settle ()
                            let mutable te = 0L
                            let mutable td = 0L
                            for _ in 1..250 do
                                let t0 = Stopwatch.GetTimestamp()
                                for i in 0 .. made.Length - 1 do
                                    made.[i] <- torch.empty(shape, dtype = torch.ScalarType.Float32, device = torch.CPU)
                                let t1 = Stopwatch.GetTimestamp()
                                for t in made do
                                    t.Dispose()
                                let t2 = Stopwatch.GetTimestamp()
                                te <- te + (t1 - t0)
                                td <- td + (t2 - t1)
                            let per t = float t * nsPerTick / float (250 * made.Length)
                            per te, per td)
                        |> Array.skip 1
                    (r, c),
                    { Wall = w
                      Cpu = cpu
                      Scoped = measure (scoped (fun () -> x + y))
                      Alloc = allocPerCall 2000 op
                      Empty = split |> Array.map fst |> median
                      Dispose = split |> Array.map snd |> median
                      EmptyAlloc =
                        allocPerCall 2000 (fun () -> torch.empty(shape, dtype = torch.ScalarType.Float32, device = torch.CPU).Dispose()) })
            let baseOf (row: Row) = baselines |> List.find (fun (k, _) -> k = row.C.Key) |> snd
            let rows =
                all
                |> List.collect (fun cs ->
                    let rs = cs |> List.map measureCase
                    // the hot calls made no new specialization
                    for k in cs do
                        let sn, se = k.Specializations()
                        if sn <> 1 || se <> 1 then
                            say (sprintf "note: %s at %s specialized %d times (null device), %d (CPU device)" k.Name k.Size sn se)
                    rs)
            let stats = all |> List.concat |> List.map (fun k -> k.CompileStats())
            let sum f = stats |> List.sumBy f
            let specN, specE = sum (fun (n, _) -> n.Specializations), sum (fun (_, e) -> e.Specializations)
            say (
                sprintf
                    "compiled, after all the calls: %d programs × %d sizes, specializations %d on the null device and %d on the CPU device (%s); host-compiled objects (CPU device) compiled %d, found in the kernel cache %d"
                    (List.head all).Length
                    all.Length
                    specN
                    specE
                    (if specN = int64 stats.Length && specE = int64 stats.Length then "one per program and size: no hot call specialized again"
                     else "more than one per program and size: see the notes above")
                    (sum (fun (_, e) -> e.EmuCompiles))
                    (sum (fun (_, e) -> e.EmuCacheHits))
            )
            printfn ""
            printfn "One eager TorchSharp op, x + y (the baseline of \"a hot call costs no more than one eager op\"), and the output allocation alone:"
            printfn ""
            table
                [ "size"; "x + y, disposed: ns"; "CPU ns"; "in a DisposeScope: ns"; "B / op"; "torch.empty: ns"; "Dispose: ns"; "B" ]
                [ for ((r, c), b) in baselines -> [ dims [| r; c |]; f0 b.Wall; f0 b.Cpu; f0 b.Scoped; f0 b.Alloc; f0 b.Empty; f0 b.Dispose; f0 b.EmptyAlloc ] ]
            printfn "Hot calls: kgen on the null device (its host cost) beside eager running the same F# function op by op (wall ns):"
            printfn ""
            table
                [ "program"; "size"; "ops"; "eager ns/call"; "eager ns/op"; "kgen hot call ns"; "lookup"; "outputs"; "run"; "rest"
                  "eager ÷ kgen"; "hot call ÷ one eager op"; "targets"; "kgen CPU device ns/call" ]
                [ for r in rows ->
                      let one = (baseOf r).Wall
                      let ratio = r.EagerNs / r.NullNs
                      let t1 = if r.NullNs <= one then "≤ 1 op ✓" else "≤ 1 op ✗"
                      let t2 = if r.C.Ops >= 20 then (if ratio >= 10.0 then ", ≥ 10× ✓" else ", ≥ 10× ✗") else ""
                      [ r.C.Name; r.C.Size; string r.C.Ops; f0 r.EagerNs; f0 (r.EagerNs / float r.C.Ops); f0 r.NullNs; f0 r.Lookup
                        f0 r.Outputs; f0 r.Run; f0 r.Other; sprintf "%.1f×" ratio; sprintf "%.2f" (r.NullNs / one); t1 + t2; f0 r.EmuNs ] ]
            printfn "The same in this thread's CPU time (what the call cost, not counting the time other processes held the core), allocations, and what kg_run did:"
            printfn ""
            table
                [ "program"; "size"; "eager CPU ns/call"; "kgen CPU ns/call"; "eager ÷ kgen"; "hot call ÷ one eager op"; "kgen B/call"; "eager B/call"
                  "launches"; "device allocs"; "plan steps" ]
                [ for r in rows ->
                      let one = (baseOf r).Cpu
                      [ r.C.Name; r.C.Size; f0 r.EagerCpu; f0 r.NullCpu; sprintf "%.1f×" (r.EagerCpu / r.NullCpu); sprintf "%.2f" (r.NullCpu / one)
                        f0 r.AllocKgen; f0 r.AllocEager; string r.Stats.Launches; string r.Stats.DeviceAllocs; string r.Stats.PlanSteps ] ]
            let fail = rows |> List.filter (fun r -> not r.Ok)
            for r in fail do
                say (sprintf "MISMATCH: kgen's CPU-device output of %s at %s differs from eager's" r.C.Name r.C.Size)
            if fail.IsEmpty then
                say "every program's output on kgen's CPU device matches eager's (allclose rtol 1e-4, atol 1e-5)"
            // pieces of a hot call measured alone
            let fmtArg = measure (fun () -> sprintf "argument %d" 1 |> ignore)
            let fmtArgAlloc = allocPerCall 2000 (fun () -> sprintf "argument %d" 1 |> ignore)
            let xh = torch.randn(64L, 256L)
            let h = xh.Handle
            let pinv = measure (fun () -> Kgen.Native.Lib.THSTensor_size(h, 0L) |> ignore)
            GC.KeepAlive xh // h is its raw handle: xh must outlive the measurement
            let shape = [| 64L; 256L |]
            let sizesPtr = GCHandle.Alloc(shape, GCHandleType.Pinned)
            let rawEmpty =
                measure (fun () ->
                    let t = THSTensor_empty(sizesPtr.AddrOfPinnedObject(), 2, 6y, 0, 0, 0uy)
                    THSTensor_dispose t)
            sizesPtr.Free()
            let stamp = measure (fun () -> Stopwatch.GetTimestamp() |> ignore)
            let gate = obj ()
            let lockNs =
                measure (fun () ->
                    Monitor.Enter gate
                    Monitor.Exit gate)
            say (
                sprintf
                    "pieces alone: sprintf \"argument %%d\" %.0f ns and %.0f B; one LibTorchSharp metadata P/Invoke (THSTensor_size) %.1f ns; libtorch's empty + dispose of a 64×256 float32 called directly (THSTensor_empty, THSTensor_dispose) %.0f ns; Monitor.Enter + Exit %.1f ns; Stopwatch.GetTimestamp %.1f ns (profiling takes 4 per call)"
                    fmtArg
                    fmtArgAlloc
                    pinv
                    rawEmpty
                    lockNs
                    stamp
            )
            printfn ""
            if large then
                // one larger size with the kernels run, for completeness
                let r, c = 1024L, 1024L
                torch.manual_seed 2L |> ignore
                let x, y = torch.randn(r, c), torch.randn(r, c)
                let b = torch.randn(c)
                let big =
                    [ case2 (r, c) "bias-gelu-scale-residual-relu (5 ops)" (dims [| r; c |]) 5 <@ fun x b -> Programs.chain5 x b @> Programs.chain5 x b
                      case2 (r, c) "pointwise chain (20 ops)" (dims [| r; c |]) 20 <@ fun x y -> Programs.chain20 x y @> Programs.chain20 x y ]
                let saveReps, saveBatch, saveWarm = reps, batchMs, warmMs
                reps <- 3
                batchMs <- 100.0
                warmMs <- 100.0
                let res =
                    big
                    |> List.map (fun k ->
                        let ok = k.Check()
                        let e = measure k.Eager
                        let m = measure k.Emu
                        let n = measure k.Null
                        k.Dispose()
                        k, ok, e, m, n)
                reps <- saveReps
                batchMs <- saveBatch
                warmMs <- saveWarm
                printfn "A larger size with the kernels run: kgen's CPU device beside libtorch's CPU kernels (median of 3 batches):"
                printfn ""
                table
                    [ "program"; "size"; "eager µs/call"; "kgen CPU device µs/call"; "CPU device ÷ eager"; "kgen null device µs/call"; "CPU device output ok" ]
                    [ for (k, ok, e, m, n) in res ->
                          [ k.Name; k.Size; f1 (e / 1e3); f1 (m / 1e3); sprintf "%.2f×" (m / e); f1 (n / 1e3); (if ok then "yes" else "NO") ] ]
            say (sprintf "total time %.0f s" total.Elapsed.TotalSeconds)
            0
        with e ->
            eprintfn "bench failed: %s" (e.ToString())
            1
