// Kgen.Check: the three-way check inside .NET (docs/fsharp.md "The three-way check").
//
// For one entry of a kgen document and one set of random inputs (PyTorch make_tensor ranges,
// from the entry's signature; symbolic sizes take odd defaults), three results are computed
// on the same TorchSharp tensors:
//   kgen    the entry's kernels (on CPU tensors: the emulator running the very CUDA C);
//   eager   the F# function itself, run op by op by TorchSharp (Kgen.Eval);
//   ts      kgen's TorchScript twin compiled by TorchSharp's torch.jit.compile (libtorch 2.10).
// Each output of kgen and of the twin is compared with eager: allclose with PyTorch's
// assert_close tolerances per dtype (../shared/design/reliability.md), NaN equal to NaN; where
// that fails for a float output, TorchInductor's second rule against a float64 reference (the
// twin run on float64 copies of the inputs). The dtypes and shapes must agree exactly.
module Kgen.Check

open System
open System.Text.Json
open Microsoft.FSharp.Quotations
open Microsoft.FSharp.Reflection
open TorchSharp

type private Tensor = torch.Tensor

/// One parameter of an entry's signature, with concrete sizes.
type Param =
    | TensorParam of dtype: string * shape: int64[] * nonzero: bool * range: (float * float) option
    | ScalarParam of dtype: string

let scalarType (dtype: string) = Collect.dtypeOf dtype

let private isFloat (t: torch.ScalarType) =
    t = torch.ScalarType.Float16 || t = torch.ScalarType.BFloat16 || t = torch.ScalarType.Float32 || t = torch.ScalarType.Float64

/// The parameters and captures of an entry's JSON signature; symbols get odd sizes
/// (13, 17, 19, ... in order of appearance, or `sizes`), unknown dims 11.
let signatureOf (signature: JsonElement) (sizes: Map<string, int64>) =
    let odd = [| 13L; 17L; 19L; 23L; 29L; 31L; 37L |]
    let syms = Collections.Generic.Dictionary<string, int64>()
    let dim (d: JsonElement) =
        match d.ValueKind with
        | JsonValueKind.Number -> d.GetInt64()
        | JsonValueKind.String ->
            let s = d.GetString()
            match sizes.TryFind s with
            | Some v -> v
            | None ->
                if not (syms.ContainsKey s) then syms.[s] <- odd.[min syms.Count (odd.Length - 1)]
                syms.[s]
        | _ -> 11L
    let item (p: JsonElement) =
        let mutable v = Unchecked.defaultof<JsonElement>
        if p.TryGetProperty("scalar", &v) then ScalarParam(v.GetString())
        else
            let shape = [| for d in p.GetProperty("shape").EnumerateArray() -> dim d |]
            let nz = p.TryGetProperty("nonzero", &v) && v.GetBoolean()
            let range =
                if p.TryGetProperty("range", &v) then Some(v.[0].GetDouble(), v.[1].GetDouble()) else None
            TensorParam(p.GetProperty("dtype").GetString(), shape, nz, range)
    let pars = [ for p in signature.GetProperty("params").EnumerateArray() -> item p ]
    let mutable caps = Unchecked.defaultof<JsonElement>
    let captures =
        if signature.TryGetProperty("captures", &caps) then [ for c in caps.EnumerateObject() -> c.Name, item c.Value ] else []
    pars, captures

/// A random tensor in PyTorch's make_tensor ranges: floats in [-9, 9], signed integers in
/// [-9, 10), uint8 in [0, 10), bool {0, 1} — or in the signature's range [lo, hi) (floats
/// uniform, integers from ceil lo to ceil hi - 1, lo = hi: every element lo); `nonzero`
/// replaces zeros by ones.
let randomTensorIn (g: torch.Generator) (dtype: string) (shape: int64[]) (nonzero: bool) (range: (float * float) option) : Tensor =
    let st = scalarType dtype
    let t =
        match dtype, range with
        | "bool", _ -> torch.randint(0L, 2L, shape, dtype = torch.ScalarType.Int64, generator = g).to_type(st)
        | _, Some(lo, hi) when isFloat st ->
            (torch.rand(shape, dtype = torch.ScalarType.Float64, generator = g) * (hi - lo) + lo).to_type(st)
        | _, Some(lo, hi) ->
            let l = int64 (ceil lo)
            let h = max (int64 (ceil hi)) (l + 1L)
            torch.randint(l, h, shape, dtype = torch.ScalarType.Int64, generator = g).to_type(st)
        | "uint8", _ -> torch.randint(0L, 10L, shape, dtype = torch.ScalarType.Int64, generator = g).to_type(st)
        | _ when not (isFloat st) -> torch.randint(-9L, 10L, shape, dtype = torch.ScalarType.Int64, generator = g).to_type(st)
        | _ -> (torch.rand(shape, dtype = torch.ScalarType.Float64, generator = g) * 18.0 - 9.0).to_type(st)
    if nonzero then torch.where(t.eq(torch.zeros_like(t)), torch.ones_like(t), t) else t

let randomTensor (g: torch.Generator) (dtype: string) (shape: int64[]) (nonzero: bool) : Tensor =
    randomTensorIn g dtype shape nonzero None

/// The .NET value of a 0-dim tensor as the F# parameter type `ty` wants it.
let private netScalar (t: Tensor) (ty: Type) : obj =
    let d = t.to_type(torch.ScalarType.Float64).item<float>()
    if ty = typeof<bool> then box (d <> 0.0) else Convert.ChangeType(d, ty)

/// The tensors of a result: a tensor, a number (a 0-dim tensor), or a (nested) tuple of them.
let rec flatten (v: obj) : Tensor list =
    match v with
    | :? Tensor as t -> [ t ]
    | null -> []
    | :? (obj[]) as a -> a |> List.ofArray |> List.collect flatten
    | :? (Tensor[]) as a -> List.ofArray a
    | _ when FSharpType.IsTuple(v.GetType()) -> FSharpValue.GetTupleFields v |> List.ofArray |> List.collect flatten
    | :? float as d -> [ torch.tensor d ]
    | :? float32 as d -> [ torch.tensor d ]
    | :? int64 as d -> [ torch.tensor d ]
    | :? int as d -> [ torch.tensor d ]
    | :? bool as d -> [ torch.tensor d ]
    | _ -> invalidOp (sprintf "a result of type %O is not a tensor, a number or a tuple of them" (v.GetType()))

/// PyTorch's assert_close tolerances (rtol, atol) per dtype.
let tolerances (t: torch.ScalarType) =
    match t with
    | torch.ScalarType.Float16 -> 1e-3, 1e-5
    | torch.ScalarType.BFloat16 -> 1.6e-2, 1e-5
    | torch.ScalarType.Float32 -> 1.3e-6, 1e-5
    | torch.ScalarType.Float64 -> 1e-7, 1e-7
    | _ -> 0.0, 0.0

/// One comparison of a result with the eager reference.
type Verdict =
    { Ok: bool
      MaxAbs: float
      MaxRel: float
      Rule: string }

let private rmse (a: Tensor) (b: Tensor) =
    let d = (a.to_type(torch.ScalarType.Float64) - b.to_type(torch.ScalarType.Float64))
    let d = torch.where(d.isnan(), torch.zeros_like(d), d)
    if d.numel() = 0L then 0.0 else d.square().mean().sqrt().item<float>()

/// Compare `got` with `ref` (and, for floats failing allclose, both with `fp64`).
let compare (got: Tensor) (ref: Tensor) (fp64: Tensor option) : Verdict =
    if got.dtype <> ref.dtype then
        { Ok = false; MaxAbs = nan; MaxRel = nan; Rule = sprintf "MISMATCH dtype %O vs %O" got.dtype ref.dtype }
    elif got.shape <> ref.shape then
        { Ok = false; MaxAbs = nan; MaxRel = nan; Rule = sprintf "MISMATCH shape %A vs %A" got.shape ref.shape }
    elif got.numel() = 0L then
        { Ok = true; MaxAbs = 0.0; MaxRel = 0.0; Rule = "ok (empty)" }
    else
        let a = got.to_type(torch.ScalarType.Float64)
        let b = ref.to_type(torch.ScalarType.Float64)
        let bothNan = a.isnan().logical_and(b.isnan())
        let diff = torch.where(bothNan, torch.zeros_like(a), (a - b).abs())
        let sameInf = a.eq(b) // equal infinities give inf - inf = NaN
        let diff = torch.where(sameInf, torch.zeros_like(a), diff)
        let maxAbs = diff.max().item<float>()
        let rel = diff / b.abs().clamp_min(1e-30)
        let maxRel = rel.max().item<float>()
        let rtol, atol = tolerances ref.dtype
        let within = diff.le(b.abs() * rtol + atol).all().item<bool>() && not (Double.IsNaN maxAbs)
        if within then
            { Ok = true; MaxAbs = maxAbs; MaxRel = maxRel; Rule = (if rtol = 0.0 then "ok (exact)" else "ok (allclose)") }
        else
            match fp64 with
            | Some r when isFloat ref.dtype ->
                let mult = if ref.dtype = torch.ScalarType.Float16 || ref.dtype = torch.ScalarType.BFloat16 || ref.numel() < 16L then 3.0 else 2.0
                let ours, theirs = rmse got r, rmse ref r
                if ours <= mult * theirs + atol / 10.0 then
                    { Ok = true; MaxAbs = maxAbs; MaxRel = maxRel; Rule = "ok (rmse vs fp64)" }
                else
                    { Ok = false; MaxAbs = maxAbs; MaxRel = maxRel; Rule = sprintf "MISMATCH (rmse %.3g vs eager %.3g against fp64)" ours theirs }
            | _ -> { Ok = false; MaxAbs = maxAbs; MaxRel = maxRel; Rule = "MISMATCH" }

/// One output's row: kgen and the TorchScript twin, each against eager.
type Row =
    { Index: int
      /// "out0", ... for the entry's results; "x (in place)" for a tensor it updates in place
      Label: string
      Dtype: string
      Shape: int64[]
      Kgen: Verdict
      TorchScript: Verdict }

/// What a check needs from kgen itself (Kgen.Runtime provides them through libkgen): the
/// entry's kernels run on the tensors (inputs in order, scalars as 0-dim tensors; captures by
/// name), and the entry's TorchScript twin (source and function name).
type KgenSide =
    { Run: Tensor list -> (string * Tensor) list -> Tensor list
      TorchScript: unit -> string
      /// the random generator's (seed, offset) now (read before Run: the state Run draws at)
      Rng: unit -> uint64 * uint64
      /// after Run: whether the entry draws random numbers
      Draws: unit -> bool
      /// the gradients (Module.SpecializeGrad, the forward and backward kernels): inputs,
      /// captures, which of them are wanted (inputs, then captures), the weights of the results
      /// (None: a result without a gradient) -> per input and capture its gradient (None: kgen
      /// gives none), and the generator state the forward drew at
      RunGrad: Tensor list -> (string * Tensor) list -> bool list -> Tensor option list -> Tensor option list * (uint64 * uint64) }

/// kgen's twin names some ops as Python's TorchScript resolves them
/// (`torch.nn.functional.gelu`, `torch.ops.aten.elu`); TorchSharp's torch.jit.compile is
/// libtorch's C++ compiler, whose resolver maps only `torch.X` to the builtin `aten::X`. The
/// same ops under that name (their keyword arguments are aten's own; a loss's reduction is
/// aten's int, not Python's string).
let private dtypeCodes =
    dict [ "bool", 11; "uint8", 0; "int8", 1; "int16", 2; "int32", 3; "int64", 4; "float16", 5
           "float32", 6; "float64", 7; "bfloat16", 15 ]

let forCppJit (src: string) =
    let s = Text.RegularExpressions.Regex.Replace(src, @"torch\.(nn\.functional|ops\.aten)\.", "torch.")
    // dtypes are ints in TorchScript; the C++ resolver has no torch.float32
    let s =
        Text.RegularExpressions.Regex.Replace(s, @"torch\.(bool|uint8|int8|int16|int32|int64|float16|float32|float64|bfloat16)\b(?!\s*\()",
                                              (fun (m: Text.RegularExpressions.Match) -> string dtypeCodes.[m.Groups.[1].Value]))
    // the losses: aten's reduction is an int (Reduction::None, Mean, Sum), and
    // F.cross_entropy is aten::cross_entropy_loss
    let s = s.Replace("reduction='none'", "reduction=0").Replace("reduction='mean'", "reduction=1").Replace("reduction='sum'", "reduction=2")
    s.Replace("torch.logsigmoid(", "torch.log_sigmoid(").Replace("torch.cross_entropy(", "torch.cross_entropy_loss(")

/// Invoke a TorchScript function and flatten its result.
let private invokeTs (src: string) (name: string) (args: Tensor list) =
    use cu = torch.jit.compile (forCppJit src)
    let r = cu.invoke(name, args |> List.map box |> Array.ofList)
    flatten r

/// The parameters of a function type: per curried parameter, its type and its items (a tupled
/// parameter has several, unit none): `fun (a, b) c -> ...` is [ (a * b, [a; b]); (c, [c]) ].
let rec paramGroups (t: Type) : (Type * Type list) list =
    if FSharpType.IsFunction t then
        let dom, rng = FSharpType.GetFunctionElements t
        let items =
            if FSharpType.IsTuple dom then List.ofArray (FSharpType.GetTupleElements dom)
            elif dom = typeof<unit> then []
            else [ dom ]
        (dom, items |> List.filter (fun i -> i <> typeof<unit>)) :: paramGroups rng
    else []

/// Flattened arguments (one per kgen parameter) as the F# function takes them: a tuple per
/// tupled parameter, () for unit.
let private regroup (groups: (Type * Type list) list) (args: obj list) =
    let rec go gs args =
        match gs with
        | [] -> []
        | (dom, items) :: rest ->
            let n = List.length items
            let mine, tail = List.splitAt n args
            let v =
                if dom = typeof<unit> then box ()
                elif FSharpType.IsTuple dom then FSharpValue.MakeTuple(Array.ofList mine, dom)
                else mine.Head
            v :: go rest tail
    go groups args

/// Run the three sides on given inputs (tensors, scalars as 0-dim tensors; `netInputs` the
/// same as the F# function takes them: tensors, or .NET numbers) and compare. An entry may
/// change its inputs or captures in place (x.add_(y)): each side runs on its own copies —
/// kgen and the twin first, then the F# function, whose quotation holds the live captured
/// tensors (restored afterwards) — and every tensor some side changed is compared as one more
/// row after the results.
let runOn (side: KgenSide) (name: string) (entry: Expr) (pars: Param list) (captures: (string * Tensor) list)
          (inputs: Tensor list) (netArgs: obj list) =
    let clones (ts: Tensor list) = ts |> List.map (fun t -> t.clone())
    let same (a: Tensor) (b: Tensor) = // bit for bit, NaN equal to NaN
        if isFloat a.dtype then a.allclose(b, 0.0, 0.0, true) else not (a.ne(b).any().item<bool>())
    let capsOrig = captures |> List.map (fun (n, t) -> n, t.clone())
    let insK, capsK = clones inputs, captures |> List.map (fun (n, t) -> n, t.clone())
    let seed, offset = side.Rng()
    let ours = side.Run insK capsK
    let src = side.TorchScript()
    // an entry that draws: its twin takes the generator state kgen's kernels drew at (kg_rng)
    // and draws the very same bits; eager TorchSharp draws from its own generator
    let draws = side.Draws()
    let rngArg () = if draws then [ torch.tensor([| int64 seed; int64 offset |]) ] else []
    let insT, capsT = clones inputs, clones (captures |> List.map snd)
    let twin = invokeTs src name (insT @ capsT @ rngArg ())
    let ins64, caps64 =
        let up (t: Tensor) = if isFloat t.dtype then t.to_type(torch.ScalarType.Float64).clone() else t.clone()
        inputs |> List.map up, captures |> List.map (snd >> up)
    // the float64 reference: the twin on float64 inputs, widened as check/oracle.py widens it
    // (its float32 carriers of half values and its float32 casts in float64, so a twin that
    // names float32 — a random draw's dtype, a cast — still runs: float64 between the same
    // roundings)
    let src64 = src.Replace(".float()", ".double()").Replace("torch.float32", "torch.float64")
    let fp64 =
        if inputs @ (captures |> List.map snd) |> List.exists (fun t -> isFloat t.dtype) then
            try Some(invokeTs src64 name (ins64 @ caps64 @ rngArg ())) with _ -> None
        else None
    // a tupled parameter `fun (a, b) ... -> ...` takes one tuple
    let insE = clones inputs
    let netE = List.mapi (fun i (a: obj) -> match a with :? Tensor -> box insE.[i] | _ -> a) netArgs
    let eagerArgs = regroup (paramGroups entry.Type) netE
    let eager, capsE =
        try
            let r = Eval.applyAll (Eval.run entry) eagerArgs |> flatten
            r, captures |> List.map (fun (n, t) -> n, t.clone()) // the live captures as the F# code left them
        finally
            for (_, live), (_, orig) in List.zip captures capsOrig do
                if not (same live orig) then live.copy_(orig) |> ignore
    if ours.Length <> eager.Length || twin.Length <> eager.Length then
        invalidOp (sprintf "%s: kgen gives %d output(s), TorchScript %d, the F# function %d" name ours.Length twin.Length eager.Length)
    // tensors changed in place, by any side: (label, eager, kgen, twin, float64 twin)
    let changed =
        [ for i, t in List.indexed inputs do
              if not (same insE.[i] t && same insK.[i] t && same insT.[i] t) then
                  yield sprintf "input %d (in place)" i, insE.[i], insK.[i], insT.[i], ins64.[i]
          for j, (n, orig) in List.indexed capsOrig do
              let (_, e), (_, k) = capsE.[j], capsK.[j]
              if not (same e orig && same k orig && same capsT.[j] orig) then
                  yield sprintf "%s (in place)" n, e, k, capsT.[j], caps64.[j] ]
    [ for i in 0 .. eager.Length - 1 ->
          let r64 = fp64 |> Option.map (fun f -> f.[i])
          if draws then
              // kgen against the twin drawing the same bits (exact where the draws decide, allclose
              // downstream); the twin against eager: dtype and shape (eager's numbers are other draws)
              let structural =
                  if twin.[i].dtype <> eager.[i].dtype then
                      { Ok = false; MaxAbs = nan; MaxRel = nan; Rule = sprintf "MISMATCH dtype %O vs %O" twin.[i].dtype eager.[i].dtype }
                  elif twin.[i].shape <> eager.[i].shape then
                      { Ok = false; MaxAbs = nan; MaxRel = nan; Rule = sprintf "MISMATCH shape %A vs %A" twin.[i].shape eager.[i].shape }
                  else { Ok = true; MaxAbs = 0.0; MaxRel = 0.0; Rule = "ok (random: dtype, shape)" }
              let k = compare ours.[i] twin.[i] r64
              { Index = i
                Label = sprintf "out%d" i
                Dtype = (string eager.[i].dtype).ToLowerInvariant()
                Shape = eager.[i].shape
                Kgen = { k with Rule = k.Rule + " vs twin" }
                TorchScript = structural }
          else
          { Index = i
            Label = sprintf "out%d" i
            Dtype = (string eager.[i].dtype).ToLowerInvariant()
            Shape = eager.[i].shape
            Kgen = compare ours.[i] eager.[i] r64
            TorchScript = compare twin.[i] eager.[i] r64 }
      for j, (label, e, k, t, t64) in List.indexed changed ->
          let r64 = fp64 |> Option.map (fun _ -> t64)
          { Index = eager.Length + j
            Label = label
            Dtype = (string e.dtype).ToLowerInvariant()
            Shape = e.shape
            Kgen = compare k e r64
            TorchScript = compare t e r64 } ]

/// kgen's side of the gradients: the forward compiled for gradients, run, then its backward on
/// the weights and the saved values at the forward's generator state (Runtime.Compiled).
let kgenGrads (m: Runtime.Module) (name: string) (ins: Tensor list) (caps: (string * Tensor) list) (wants: bool list) (weights: Tensor option list) =
    use c = m.SpecializeGrad(name, ins, caps, wants)
    let outs = c.Run(ins, caps)
    let nres = outs.Length - c.Saved
    let rng = c.RngLast
    let grads : Tensor option[] = Array.create (ins.Length + caps.Length) None
    match c.Backward with
    | None -> ()
    | Some b ->
        let bins =
            c.BackwardInputs |> List.map (fun (src, idx) ->
                match src with
                | s when s = Kgen.Native.Lib.BwdInGrad -> weights.[idx].Value
                | s when s = Kgen.Native.Lib.BwdInInput -> ins.[idx]
                | s when s = Kgen.Native.Lib.BwdInCapture -> snd caps.[idx]
                | s when s = Kgen.Native.Lib.BwdInResult -> outs.[idx]
                | _ -> outs.[nres + idx])
        b.PinRng rng
        let gs = b.Run(bins, [])
        List.zip c.BackwardOutputs gs |> List.iter (fun ((cap, idx), g) -> grads.[if cap then ins.Length + idx else idx] <- Some g)
    List.ofArray grads, rng

/// Σ_i (out_i · w_i).sum() over the floating results with weights, and its gradients with
/// respect to `leaves` (None for a leaf not reached: zeros)
let private weightedGrads (outs: Tensor list) (weights: Tensor option list) (leaves: Tensor list) =
    let terms =
        List.zip outs weights |> List.choose (fun (o, w) ->
            match w with
            | Some w when isFloat o.dtype && o.requires_grad -> Some((o * w.to_type(o.dtype)).sum().to_type(torch.ScalarType.Float64))
            | _ -> None)
    if terms.IsEmpty then leaves |> List.map (fun l -> torch.zeros_like(l))
    else
        let total = terms |> List.reduce (+)
        let gs = torch.autograd.grad(Collections.Generic.List<Tensor>([ total ]), Collections.Generic.List<Tensor>(leaves), allow_unused = true)
        List.zip leaves (List.ofSeq gs) |> List.map (fun (l, g) -> if isNull g || g.IsInvalid then torch.zeros_like(l) else g)

/// The gradients' rows (after runOn's): kgen's backward, TorchSharp's autograd of the F# function
/// and torch.jit's autograd of the twin, of Σ result · weight (random weights) with respect to
/// every floating input and capture not updated in place; kgen and the twin each against eager
/// (PyTorch's tolerances, the rmse rule against the twin's float64 autograd). An entry that draws
/// random numbers compares kgen with the twin (eager draws other bits).
let gradRows (side: KgenSide) (name: string) (entry: Expr) (captures: (string * Tensor) list) (inputs: Tensor list) (netArgs: obj list)
             (changed: string list) (seed: uint64) : Row list =
    use g = new torch.Generator(seed + 15485863UL, torch.CPU)
    let isScalarArg i = match netArgs.[i] with :? Tensor -> false | _ -> true
    let wantIn = inputs |> List.mapi (fun i t -> not (isScalarArg i) && isFloat t.dtype && not (List.contains (sprintf "input %d (in place)" i) changed))
    let wantCap = captures |> List.map (fun (n, t) -> isFloat t.dtype && not (List.contains (sprintf "%s (in place)" n) changed))
    let wants = wantIn @ wantCap
    // the results' shapes and dtypes: an eager run without gradients
    let resultsE =
        use _ = torch.no_grad()
        Eval.applyAll (Eval.run entry) (regroup (paramGroups entry.Type) (netArgs |> List.mapi (fun i a -> match a with :? Tensor -> box (inputs.[i].clone()) | _ -> a))) |> flatten
    let weights =
        resultsE |> List.map (fun r -> if isFloat r.dtype then Some((torch.rand(r.shape, dtype = torch.ScalarType.Float64, generator = g) * 2.0 - 1.0).to_type(r.dtype)) else None)
    let ours, (rs, ro) = side.RunGrad (inputs |> List.map (fun t -> t.clone())) (captures |> List.map (fun (n, t) -> n, t.clone())) wants weights
    let draws = side.Draws()
    let rngArg () = if draws then [ torch.tensor([| int64 rs; int64 ro |]) ] else []
    let src = side.TorchScript()
    // the twin's autograd (float32 and float64)
    let twinGrads (double: bool) =
        let cast (t: Tensor) = if double && isFloat t.dtype then t.to_type(torch.ScalarType.Float64) else t
        let ins = inputs |> List.mapi (fun i t -> let c = (cast t).detach().clone() in if wantIn.[i] then c.requires_grad_(true) else c)
        let caps = captures |> List.mapi (fun j (_, t) -> let c = (cast t).detach().clone() in if wantCap.[j] then c.requires_grad_(true) else c)
        use cu = torch.jit.compile (forCppJit src)
        let outs = cu.invoke(name, ins @ caps @ rngArg () |> List.map box |> Array.ofList) |> flatten
        let leaves = (List.zip ins wantIn |> List.filter snd |> List.map fst) @ (List.zip caps wantCap |> List.filter snd |> List.map fst)
        weightedGrads outs (weights |> List.map (Option.map cast)) leaves
    let twin = twinGrads false
    let twin64 = try Some(twinGrads true) with _ -> None
    // eager TorchSharp autograd of the F# function: the inputs as leaves, the live captures
    // requiring grad for the run (restored after)
    let insE = inputs |> List.mapi (fun i t -> if wantIn.[i] then t.detach().clone().requires_grad_(true) else t.clone())
    let flags = captures |> List.map (fun (_, t) -> t.requires_grad)
    let eager =
        try
            captures |> List.iteri (fun j (_, t) -> if wantCap.[j] && not t.requires_grad then t.requires_grad_(true) |> ignore)
            let netE = netArgs |> List.mapi (fun i a -> match a with :? Tensor -> box insE.[i] | _ -> a)
            let outs = Eval.applyAll (Eval.run entry) (regroup (paramGroups entry.Type) netE) |> flatten
            let leaves = (List.zip insE wantIn |> List.filter snd |> List.map fst) @ (List.zip (captures |> List.map snd) wantCap |> List.filter snd |> List.map fst)
            weightedGrads outs weights leaves
        finally
            List.zip captures flags |> List.iter (fun ((_, t), f) -> if t.requires_grad <> f then t.requires_grad_(f) |> ignore)
    let names = (inputs |> List.mapi (fun i _ -> sprintf "grad in%d" i)) @ (captures |> List.map (fun (n, _) -> sprintf "grad %s" n))
    let wanted = List.zip names wants |> List.indexed |> List.filter (fun (_, (_, w)) -> w)
    [ for k, (i, (label, _)) in List.indexed wanted ->
          let e, t = eager.[k], twin.[k]
          let r64 = twin64 |> Option.map (fun l -> l.[k])
          let o = ours.[i] |> Option.defaultWith (fun () -> torch.zeros_like(e))
          let kg = if draws then compare o t r64 else compare o e r64
          let structural = if draws then { Ok = true; MaxAbs = 0.0; MaxRel = 0.0; Rule = "ok (random: kgen against the twin)" } else compare t e r64
          { Index = 1000 + k
            Label = label
            Dtype = (string e.dtype).ToLowerInvariant()
            Shape = e.shape
            Kgen = (if draws then { kg with Rule = kg.Rule + " vs twin" } else kg)
            TorchScript = structural } ]

/// Run the three sides on random inputs for `pars` (seeded) and compare; with grad, the
/// gradients too (gradRows).
let run (side: KgenSide) (name: string) (entry: Expr) (pars: Param list) (captures: (string * Tensor) list) (seed: uint64) (grad: bool) =
    use g = new torch.Generator(seed, torch.CPU)
    let inputs =
        pars |> List.map (function
            | TensorParam(dt, shape, nz, r) -> randomTensorIn g dt shape nz r
            | ScalarParam dt -> randomTensor g dt [||] false)
    let types = paramGroups entry.Type |> List.collect snd
    let netArgs =
        List.zip pars inputs
        |> List.mapi (fun i (p, t) ->
            match p with
            | ScalarParam _ ->
                let ty = if i < types.Length then types.[i] else typeof<float32>
                netScalar t ty
            | TensorParam _ -> box t)
    let rows = runOn side name entry pars captures inputs netArgs
    if not grad then rows
    else
        let changed = rows |> List.filter (fun r -> r.Label.EndsWith "(in place)") |> List.map (fun r -> r.Label)
        rows @ gradRows side name entry captures inputs netArgs changed seed

/// A row as `kgen check` prints one.
let format (r: Row) =
    let v (x: Verdict) = sprintf "%-9.3g %s" x.MaxAbs x.Rule
    let shape = "[" + (r.Shape |> Array.map string |> String.concat ", ") + "]"
    sprintf "  %-5s %-8s %-16s kgen %s | torchscript %s" r.Label r.Dtype shape (v r.Kgen) (v r.TorchScript)

/// Check every entry (or `only`) of serialized entries: the document is loaded into kgen, each
/// entry gets random inputs from its signature, captured tensors are the live objects the
/// quotation holds (the same tensors for all three sides). Returns (entry, rows) per entry.
let entriesGrad (ctx: Runtime.Context) (entries: Serializer.Entry list) (only: string option) (sizes: Map<string, int64>) (seed: uint64) (grad: bool) =
    // `--entry E` serializes E alone: another entry's unsupported module must not fail E
    let entries = match only with Some e -> entries |> List.filter (fun x -> x.Name = e) | None -> entries
    let doc = Serializer.serialize entries
    use m = ctx.Load doc.Json
    let root = JsonDocument.Parse(doc.Json, JsonDocumentOptions(MaxDepth = Serializer.maxDepth)).RootElement
    [ for (i, en) in List.indexed entries do
          if only.IsNone || only = Some en.Name then
              let je = root.GetProperty("entries").[i]
              let mutable sg = Unchecked.defaultof<JsonElement>
              if not (je.TryGetProperty("signature", &sg)) then
                  invalidOp (sprintf "entry %s has no signature: give one with [<Kgen.Entry(\"...\")>] or --sig" en.Name)
              let pars, capSigs = signatureOf sg sizes
              use g = new torch.Generator(seed + 7919UL, torch.CPU)
              let captures =
                  capSigs |> List.map (fun (n, p) ->
                      match doc.Captures |> List.tryFind (fun c -> c.Name = n) with
                      | Some c -> n, (c.Value :?> Tensor)
                      | None ->
                          match p with
                          | TensorParam(dt, shape, nz, r) -> n, randomTensorIn g dt shape nz r
                          | ScalarParam dt -> n, randomTensor g dt [||] false)
              let compiled = ref None
              let side =
                  { Run = fun ins caps ->
                        let c = m.Specialize(en.Name, ins, caps)
                        if compiled.Value.IsNone && c.Warnings <> "" then eprintf "%s" c.Warnings
                        compiled.Value <- Some c
                        c.Run(ins, caps)
                    TorchScript = fun () -> compiled.Value.Value.Emit Kgen.Native.KgArtifact.TorchScript
                    Rng = fun () -> ctx.RngState
                    Draws = fun () -> compiled.Value |> Option.exists (fun c -> c.RngStreams > 0UL)
                    RunGrad = kgenGrads m en.Name }
              let rows = run side en.Name en.Expr pars captures seed grad
              compiled.Value |> Option.iter (fun c -> (c :> IDisposable).Dispose())
              yield en.Name, rows ]

/// Check every entry (or `only`), results only (entriesGrad with grad = false).
let entries (ctx: Runtime.Context) (es: Serializer.Entry list) (only: string option) (sizes: Map<string, int64>) (seed: uint64) =
    entriesGrad ctx es only sizes seed false

/// The compact signature of actual arguments (a tensor: dtype[shape]; a number: its dtype).
let private compactOf (args: obj list) =
    let dt (t: torch.ScalarType) = (string t).ToLowerInvariant() |> function "byte" -> "uint8" | "bool" -> "bool" | s -> s
    args
    |> List.map (function
        | :? Tensor as t -> sprintf "%s[%s]" (dt t.dtype) (t.shape |> Array.map string |> String.concat ",")
        | :? float32 -> "float32"
        | :? float -> "float64"
        | :? int -> "int32"
        | :? int64 -> "int64"
        | :? bool -> "bool"
        | o -> invalidArg "inputs" (sprintf "an argument of type %O is neither a tensor nor a number" (o.GetType())))
    |> String.concat ", "

/// The three-way check of a quotation on the caller's own inputs (tensors or numbers, in
/// parameter order): kgen's kernels, the F# function run by TorchSharp, and the TorchScript
/// twin through torch.jit; with grad, the gradients of every floating input and capture too
/// (kgen's backward, TorchSharp's autograd, the twin's). Prints one row per output and
/// gradient; raises on any mismatch.
let quotationGrad (q: Expr) (inputs: obj list) (grad: bool) : Row list =
    Collect.requireReflected q
    let entry: Serializer.Entry = { Name = "check"; Expr = q; Signature = Some(compactOf inputs); NonZero = [||] }
    let doc = Serializer.serialize [ entry ]
    use ctx = new Runtime.Context()
    use m = ctx.Load doc.Json
    let tensors =
        inputs |> List.map (function
            | :? Tensor as t -> t
            | :? float32 as v -> torch.tensor v
            | :? float as v -> torch.tensor v
            | :? int as v -> torch.tensor v
            | :? int64 as v -> torch.tensor v
            | :? bool as v -> torch.tensor v
            | o -> invalidArg "inputs" (sprintf "%O" (o.GetType())))
    let captures =
        doc.Captures |> List.choose (fun c -> match c.Value with :? Tensor as t -> Some(c.Name, t) | _ -> None)
    let compiled = ref None
    let side =
        { Run = fun ins caps ->
              let c = m.Specialize("check", ins, caps)
              if compiled.Value.IsNone && c.Warnings <> "" then eprintf "%s" c.Warnings
              compiled.Value <- Some c
              c.Run(ins, caps)
          TorchScript = fun () -> compiled.Value.Value.Emit Kgen.Native.KgArtifact.TorchScript
          Rng = fun () -> ctx.RngState
          Draws = fun () -> compiled.Value |> Option.exists (fun c -> c.RngStreams > 0UL)
          RunGrad = kgenGrads m "check" }
    // the caller's tensors themselves: a "signature" of fixed tensors
    let pars = inputs |> List.map (function :? Tensor as t -> TensorParam((string t.dtype), t.shape, false, None) | _ -> ScalarParam "float64")
    let rows = runOn side "check" q pars captures tensors inputs
    let rows =
        if not grad then rows
        else rows @ gradRows side "check" q captures tensors inputs (rows |> List.filter (fun r -> r.Label.EndsWith "(in place)") |> List.map (fun r -> r.Label)) 0UL
    compiled.Value |> Option.iter (fun c -> (c :> IDisposable).Dispose())
    for r in rows do printfn "%s" (format r)
    if rows |> List.exists (fun r -> not (r.Kgen.Ok && r.TorchScript.Ok)) then
        failwithf "Kgen.check: %d output(s) differ" (rows |> List.filter (fun r -> not (r.Kgen.Ok && r.TorchScript.Ok)) |> List.length)
    rows

/// quotationGrad without the gradients.
let quotation (q: Expr) (inputs: obj list) : Row list = quotationGrad q inputs false
