// Kgen.Recurrent: TorchSharp's whole-sequence recurrent modules (LSTM, GRU, RNN) expanded into the
// arithmetic ATen computes on the CPU (issue 23).
//
// TorchSharp 0.107's LSTM / GRU / RNN are libtorch's C++ modules (THSNN_LSTM_forward ->
// torch::lstm / gru / rnn_tanh / rnn_relu -> aten/src/ATen/native/RNN.cpp `_rnn_impl_with_concat`),
// so, as for the cells (Kgen.Modules), the serializer writes what that function computes, in its
// order: per layer and direction a FullLayer — the input projection of every step at once
// (`linear(x, W_ih, b_ih)`, the CPU path's pre_compute_input), then a loop over time whose step is
// the cell with the hidden product first (`linear(h, W_hh, b_hh) + gx[t]`) — a reverse direction
// walking t from T-1 down; directions concatenated on the last dim, layers chained, h_n (and c_n)
// stacked as [layers * directions, N, H] in PyTorch's order (l0, l0_reverse, l1, ...). batch_first
// transposes the input and the output (not the states), absent states are zeros.
//
// What lives in native code is told by probes, as for the cells: RNN's nonlinearity (tanh or relu,
// one forward on fixed values) and, in training mode, whether dropout between layers is 0 (the
// training forward against the eval one); a nonzero dropout probability cannot be read back, so
// training mode with dropout is a located error. TorchSharp 0.107's LSTM has no proj_size.
//
// The output sequence is carried through the loop and each step writes its h at row t with
// `select_scatter` (`push` below): the host plan stores h straight into row t of the carried
// buffer (passes/plan_inplace.c: the buffer dies there, so it is donated; only the first step,
// whose buffer the initial zeros still hold, composes the whole tensor), so a step moves
// O(N·H) bytes, not O(T·N·H), and its kernels are the cell's own (docs/fsharp.md).
//
// Bad input is refused as the native module refuses it, never read as another shape: the input
// must be rank 3 (checkedInput) and each given state exactly [layers * directions, N, H]
// (checkedState: a [1, N, H] state would otherwise broadcast, a [3, N, H] one lose its third
// layer); a wrong feature size or dtype fails in the input projection. Each is a located shape or
// type error at the F# call (dotnet/Kgen.Tests/RecurrentErrorTests.fs, tests/bad/rnn_*).
module Kgen.Recurrent

open System
open System.Reflection
open Microsoft.FSharp.Quotations
open Microsoft.FSharp.Quotations.Patterns
open TorchSharp
open TorchSharp.Modules
open Kgen.Modules

type private Tensor = torch.Tensor

/// The output sequence with a step's h written at row t: `out.select_scatter(h, 0, t)`, which
/// the host plan does in place (the step's kernel stores h into row t; passes/plan_inplace.c).
let push =
    <@ fun (out: Tensor) (hy: Tensor) (t: int64) -> out.select_scatter(hy, 0L, t) @>

/// The input checked as TorchSharp's native module checks it (torch::nn::RNNImplBase::check_input:
/// "input must have 3 dimensions"): `permute(0, 1, 2)` is the identity on a rank-3 tensor and a
/// located shape error on any other rank (a rank-2 or rank-4 input would otherwise be misread;
/// its feature size is checked by the input projection, `mat1 and mat2 shapes cannot be multiplied`).
let checkedInput =
    <@ fun (x: Tensor) -> x.permute([| 0L; 1L; 2L |]) @>

/// An initial state checked to be exactly [layers * directions, N, H], N the input's batch, as the
/// native module requires ("Expected hidden size (2, 3, 5), got [3, 3, 5]"): `expand` accepts each
/// dim equal or 1 and `view` the same element count, so together only the exact shape (a state of
/// the wrong layer count, batch or hidden size, or rank, is a located shape error, never read as
/// another shape: a [1, N, H] state broadcast over two layers, or a [3, N, H] one's third layer
/// ignored). Both are views: no kernel, no copy.
let checkedState =
    <@ fun (s: Tensor) (xs: Tensor) (states: int64) (hs: int64) ->
        let sizes = [| states; xs.shape.[1]; hs |]
        let _each = s.expand(sizes)
        s.view(sizes) @>

/// One layer and direction of an LSTM over a sequence-first input [T, N, I] (h0 [N, H] and c0
/// [N, H], or null for zeros; rev 1 walks t from T-1 down): (output [T, N, H], h_T, c_T).
let lstmLayer =
    <@ fun (xs: Tensor) (h0: Tensor) (c0: Tensor) (wih: Tensor) (whh: Tensor) (bih: Tensor) (bhh: Tensor) (rev: int64) ->
        let steps = xs.shape.[0]
        let hs = whh.shape.[1]
        let gx = torch.nn.functional.linear(xs, wih, bih)
        let mutable h = if isNull h0 then torch.zeros(xs.shape.[1], hs, dtype = xs.dtype) else h0
        let mutable c = if isNull c0 then torch.zeros(xs.shape.[1], hs, dtype = xs.dtype) else c0
        let mutable out = torch.zeros_like(gx.narrow(2L, 0L, hs))
        for k in 0L .. steps - 1L do
            let t = rev * (steps - 1L - k) + (1L - rev) * k
            let g = (torch.nn.functional.linear(h, whh, bhh) + gx.[t]).chunk(4L, 1L)
            let cy = g.[1].sigmoid() * c + g.[0].sigmoid() * g.[2].tanh()
            let hy = g.[3].sigmoid() * cy.tanh()
            out <- (%push) out hy t
            h <- hy
            c <- cy
        out, h, c @>

/// One layer and direction of a GRU (ATen's GRUCell with the input gates precomputed): (output, h_T).
let gruLayer =
    <@ fun (xs: Tensor) (h0: Tensor) (wih: Tensor) (whh: Tensor) (bih: Tensor) (bhh: Tensor) (rev: int64) ->
        let steps = xs.shape.[0]
        let hs = whh.shape.[1]
        let gx = torch.nn.functional.linear(xs, wih, bih)
        let mutable h = if isNull h0 then torch.zeros(xs.shape.[1], hs, dtype = xs.dtype) else h0
        let mutable out = torch.zeros_like(gx.narrow(2L, 0L, hs))
        for k in 0L .. steps - 1L do
            let t = rev * (steps - 1L - k) + (1L - rev) * k
            let gi = gx.[t].chunk(3L, 1L)
            let gh = torch.nn.functional.linear(h, whh, bhh).chunk(3L, 1L)
            let r = (gh.[0] + gi.[0]).sigmoid()
            let z = (gh.[1] + gi.[1]).sigmoid()
            let n = (gi.[2] + gh.[2] * r).tanh()
            let hy = (h - n) * z + n
            out <- (%push) out hy t
            h <- hy
        out, h @>

/// One layer and direction of an Elman RNN (relu true: ReLU, else tanh): (output, h_T).
let rnnLayer =
    <@ fun (xs: Tensor) (h0: Tensor) (wih: Tensor) (whh: Tensor) (bih: Tensor) (bhh: Tensor) (rev: int64) (relu: bool) ->
        let steps = xs.shape.[0]
        let hs = whh.shape.[1]
        let gx = torch.nn.functional.linear(xs, wih, bih)
        let mutable h = if isNull h0 then torch.zeros(xs.shape.[1], hs, dtype = xs.dtype) else h0
        let mutable out = torch.zeros_like(gx)
        for k in 0L .. steps - 1L do
            let t = rev * (steps - 1L - k) + (1L - rev) * k
            let pre = torch.nn.functional.linear(h, whh, bhh) + gx.[t]
            let hy = if relu then pre.relu() else pre.tanh()
            out <- (%push) out hy t
            h <- hy
        out, h @>

type private Kind =
    | Lstm
    | Gru
    | Rnn of relu: bool

let private field<'T> (o: obj) (name: string) : 'T =
    let f = o.GetType().GetField(name, BindingFlags.NonPublic ||| BindingFlags.Instance)
    if isNull f then raise (ModuleError(sprintf "%s: TorchSharp's field %s is missing (a TorchSharp other than 0.107?)" (o.GetType().Name) name))
    f.GetValue o :?> 'T

/// The expansion of `m.forward(x, state)` / `m.call(x, state)` on a live LSTM, GRU or RNN.
let private expand (l: Live) (m: torch.nn.Module) (x: Expr) (state: Expr) : Expr =
    let fail msg = raise (ModuleError(sprintf "module '%s' (%s): %s" l.Path (m.GetType().Name) msg))
    let hidden: int64 = field m "_hidden_size"
    let layers: int64 = field m "_num_layers"
    let bidir: bool = field m "_bidirectional"
    let batchFirst: bool = field m "_batch_first"
    let dirs = if bidir then 2 else 1
    let p (name: string) = nativeParam m name
    let suffix d = if d = 1 then "_reverse" else ""
    let w0 = p "weight_ih_l0"
    if isNull w0 then fail "its parameters are not named as PyTorch's (weight_ih_l0, ...)"
    // RNN's nonlinearity lives in native code: a probe forward of the first layer on fixed values
    let kind =
        match m with
        | :? LSTM -> Lstm
        | :? GRU -> Gru
        | :? RNN as r ->
            use _ = torch.no_grad()
            let inputs = w0.shape.[1]
            use xs = torch.linspace(-1.0, 1.0, 2L * inputs, dtype = w0.dtype).reshape(2L, 1L, inputs)
            // h_n[0]: the first layer's forward direction at its last step
            let struct (_, hn) = r.forward((if batchFirst then xs.transpose(0L, 1L) else xs), null)
            let native = hn.[0L]
            let eager (relu: bool) =
                let o = Eval.applyAll (Eval.run rnnLayer) [ box xs; null; box w0; box (p "weight_hh_l0"); box (p "bias_ih_l0"); box (p "bias_hh_l0"); box 0L; box relu ]
                snd (o :?> Tensor * Tensor)
            if native.allclose(eager false, 1e-4, 1e-6) then Rnn false
            elif native.allclose(eager true, 1e-4, 1e-6) then Rnn true
            else fail "its nonlinearity is neither tanh nor relu by a probe forward"
        | _ -> fail "not a recurrent module"
    // training mode: dropout between layers (its probability lives in native code) must be 0
    if m.training && layers > 1L then
        let differs =
            use _ = torch.no_grad()
            let inputs = w0.shape.[1]
            use xp = torch.linspace(-1.0, 1.0, 3L * 2L * inputs, dtype = w0.dtype).reshape(3L, 2L, inputs)
            let run () =
                match m with
                | :? LSTM as s -> let struct (o, _, _) = s.forward(xp, Nullable()) in o
                | :? GRU as s -> let struct (o, _) = s.forward(xp, null) in o
                | :? RNN as s -> let struct (o, _) = s.forward(xp, null) in o
                | _ -> fail "not a recurrent module"
            let trained = run ()
            m.eval() |> ignore
            let evaluated = try run () finally m.train() |> ignore
            not (trained.allclose(evaluated, 1e-5, 1e-7))
        if differs then
            fail "training mode with dropout between layers: its probability lives in native code and cannot be read back (call .eval(), or use dropout = 0 and a Dropout module)"
    let nul = Expr.Value(null, typeof<Tensor>)
    let cap (name: string) =
        let t = p name
        if isNull t then nul else Expr.ValueWithName(t, typeof<Tensor>, join l.Path name)
    if isNull (p (sprintf "weight_ih_l%d" (layers - 1L))) || (bidir && isNull (p "weight_ih_l0_reverse")) then
        fail "its parameters are not those of its layers and directions"
    // the states: LSTM's Nullable(struct (h0, c0)) or null; GRU's / RNN's h0 or null
    let h0, c0 =
        match kind, state with
        | _, Value(null, _) -> None, None
        | Lstm, NewObject(ctor, [ tup ]) when ctor.DeclaringType.IsGenericType && ctor.DeclaringType.GetGenericTypeDefinition() = typedefof<Nullable<int>> ->
            let v = Var("h0_c0", tup.Type)
            Some(Expr.TupleGet(Expr.Var v, 0), v, tup), Some(Expr.TupleGet(Expr.Var v, 1), v, tup)
        | Lstm, DefaultValue _ -> None, None
        | Lstm, _ -> fail "pass its state as Nullable(struct (h0, c0)) or null"
        | _, s -> Some(s, Var("h0", typeof<Tensor>), s), None
    let xv = Var("rnn_input", typeof<Tensor>)
    // each given state checked once (checkedState), bound to its own variable the layers select from
    let checkedVar (st: (Expr * Var * Expr) option) (name: string) =
        st |> Option.map (fun (e, v, _) ->
            let src = if v.Type = typeof<Tensor> then Expr.Var v else e
            Var(name, typeof<Tensor>), bindTemplate l.Path checkedState [ src; Expr.Var xv; Expr.Value(layers * int64 dirs); Expr.Value hidden ])
    let hChecked, cChecked = checkedVar h0 "h0_checked", checkedVar c0 "c0_checked"
    let stateOf (st: (Var * Expr) option) (i: int) =
        match st with
        | None -> nul
        | Some(v, _) -> Expr.Call(Expr.Var v, typeof<Tensor>.GetMethod("select", [| typeof<int64>; typeof<int64> |]), [ Expr.Value 0L; Expr.Value(int64 i) ])
    let transpose (e: Expr) = Expr.Call(e, typeof<Tensor>.GetMethod("transpose", [| typeof<int64>; typeof<int64> |]), [ Expr.Value 0L; Expr.Value 1L ])
    let mCat = typeof<torch>.GetMethod("cat", [| typeof<Tensor[]>; typeof<int64> |])
    let mStack = typeof<torch>.GetMethod("stack", [| typeof<Collections.Generic.IEnumerable<Tensor>>; typeof<int64> |])
    let stack (es: Expr list) = Expr.Call(mStack, [ Expr.Coerce(Expr.NewArray(typeof<Tensor>, es), typeof<Collections.Generic.IEnumerable<Tensor>>); Expr.Value 0L ])
    // layer by layer: each direction's template bound to its tensors, its result let-bound
    let rec layer (li: int) (input: Expr) (hs: Expr list) (cs: Expr list) : Expr =
        if li = int layers then
            let out = if batchFirst then transpose input else input
            let hn = stack (List.rev hs)
            match kind with
            | Lstm -> Expr.NewStructTuple(typeof<struct (Tensor * Tensor * Tensor)>.Assembly, [ out; hn; stack (List.rev cs) ])
            | _ -> Expr.NewStructTuple(typeof<struct (Tensor * Tensor)>.Assembly, [ out; hn ])
        else
            let one (d: int) (k: Expr -> Expr -> Expr -> Expr) =
                let n s = sprintf "%s_l%d%s" s li (suffix d)
                let i = li * dirs + d
                let ws = [ cap (n "weight_ih"); cap (n "weight_hh"); cap (n "bias_ih"); cap (n "bias_hh") ]
                let rev = Expr.Value(int64 d)
                let r = Var(sprintf "layer%d%s" li (suffix d), (match kind with Lstm -> typeof<Tensor * Tensor * Tensor> | _ -> typeof<Tensor * Tensor>))
                let body =
                    match kind with
                    | Lstm -> bindTemplate l.Path lstmLayer ([ input; stateOf hChecked i; stateOf cChecked i ] @ ws @ [ rev ])
                    | Gru -> bindTemplate l.Path gruLayer ([ input; stateOf hChecked i ] @ ws @ [ rev ])
                    | Rnn relu -> bindTemplate l.Path rnnLayer ([ input; stateOf hChecked i ] @ ws @ [ rev; Expr.Value relu ])
                let get j = Expr.TupleGet(Expr.Var r, j)
                Expr.Let(r, body, k (get 0) (get 1) (match kind with Lstm -> get 2 | _ -> nul))
            let next (outs: Expr list) (hn: Expr list) (cn: Expr list) =
                let joined = match outs with [ o ] -> o | _ -> Expr.Call(mCat, [ Expr.NewArray(typeof<Tensor>, outs); Expr.Value 2L ])
                let v = Var(sprintf "layer%d_out" li, typeof<Tensor>)
                Expr.Let(v, joined, layer (li + 1) (Expr.Var v) (List.rev hn @ hs) (List.rev cn @ cs))
            if bidir then one 0 (fun o0 h0' c0' -> one 1 (fun o1 h1' c1' -> next [ o0; o1 ] [ h0'; h1' ] [ c0'; c1' ]))
            else one 0 (fun o h c -> next [ o ] [ h ] [ c ])
    let body = layer 0 (Expr.Var xv) [] []
    let bindChecked (st: (Var * Expr) option) (e: Expr) = match st with Some(v, c) -> Expr.Let(v, c, e) | None -> e
    let withState =
        match h0 with
        | Some(_, v, e) -> Expr.Let(v, e, bindChecked hChecked (bindChecked cChecked body))
        | None -> body
    let x3 = bindTemplate l.Path checkedInput [ x ]
    Expr.Let(xv, (if batchFirst then transpose x3 else x3), withState)

/// `m.forward(x, state)` / `m.call(x, state)` on a live LSTM, GRU or RNN: its expansion (a struct
/// tuple `(output, h_n)`, or `(output, h_n, c_n)` for LSTM, as TorchSharp returns them).
let (|RecurrentApply|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(Some m, mi, [ x; state ]) when (mi.Name = "forward" || mi.Name = "call") && x.Type = typeof<Tensor> ->
        match live vars m with
        | Some l when (l.Obj :? LSTM || l.Obj :? GRU || l.Obj :? RNN) -> Some(expand l (l.Obj :?> torch.nn.Module) x state)
        | _ -> None
    | _ -> None
