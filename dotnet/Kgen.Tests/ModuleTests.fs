// TorchSharp modules as real F# model code writes them, expanded by the serializer
// (Kgen.Modules): known modules become functional calls with their live parameters captured,
// user modules with a [<ReflectedDefinition>] forward are inlined, `-->`, `.forward`, `.call`
// and `|>` all reach them, and an unknown module is an error naming its type.
module Kgen.Tests.ModuleTests

open Xunit
open TorchSharp
open type TorchSharp.torch.nn
open Microsoft.FSharp.Quotations
open Kgen
open Kgen.Tests.Support

type Tensor = torch.Tensor

type Mlp(dIn: int64, dHidden: int64) as this =
    inherit Module<Tensor, Tensor>("mlp")
    let fc1 = Linear(dIn, dHidden)
    let act = GELU()
    let drop = Dropout(0.25)
    let fc2 = Linear(dHidden, dIn, hasBias = false)
    do this.RegisterComponents()
    member val Scale = 0.5f with get, set

    [<ReflectedDefinition>]
    override this.forward(x: Tensor) =
        let h = x --> fc1 --> act
        (drop.call h |> fc2.forward) * this.Scale

type WithConv() as this =
    inherit Module<Tensor, Tensor>("conv")
    let conv = Conv3d(3L, 4L, 3L) // 3-D convolutions are not expanded (yet)
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: Tensor) = conv.forward x

let serialize (e: Expr) sg =
    Serializer.serialize [ { Name = "f"; Expr = e; Signature = sg; NonZero = [||] } ]

let calls (json: string) =
    parse json |> nodes |> Seq.filter (fun n -> kind n = "Call")
    |> Seq.map (fun n -> n |> prop "method" |> prop "name" |> str) |> List.ofSeq

[<Fact>]
let ``a user module is inlined and its Linear, GELU and Dropout (eval) expanded`` () =
    let m = new Mlp(8L, 16L)
    m.eval() |> ignore
    let d = serialize <@ fun (x: Tensor) -> m.forward x @> (Some "float32[2,8]")
    let cs = calls d.Json
    Assert.Equal(2, cs |> List.filter ((=) "linear") |> List.length)
    Assert.Contains("gelu", cs)
    Assert.DoesNotContain("dropout", cs)
    Assert.DoesNotContain("forward", cs)
    let names = d.Captures |> List.map (fun c -> c.Name) |> List.sort
    Assert.Equal<string list>([ "m_fc1_bias"; "m_fc1_weight"; "m_fc2_weight" ], names)
    // the live parameter objects themselves, so a call binds them as they are then
    let w = d.Captures |> List.find (fun c -> c.Name = "m_fc1_weight")
    Assert.Same(m.get_parameter("fc1.weight"), w.Value)
    // a bias-less Linear passes null; the scale read through `this` is a constant
    let vals = parse d.Json |> nodes |> Seq.filter (fun n -> kind n = "Value") |> Seq.map (fun n -> (prop "value" n).GetRawText()) |> List.ofSeq
    Assert.Contains("null", vals)
    Assert.Contains("0.5", vals)
    // the signature lists the captured parameters from the live tensors
    let caps = (parse d.Json |> prop "entries").[0] |> prop "signature" |> prop "captures"
    Assert.Equal("[16,8]", (caps |> prop "m_fc1_weight" |> prop "shape").GetRawText().Replace(" ", "").Replace("\n", ""))

[<Fact>]
let ``dropout in training mode stays a dropout call`` () =
    let m = new Mlp(8L, 16L)
    m.train()
    let cs = calls (serialize <@ fun (x: Tensor) -> m.call x @> None).Json
    Assert.Contains("dropout", cs)

[<Fact>]
let ``Sequential, Embedding and LayerNorm expand; --> reaches them`` () =
    let seq = Sequential(("ln", LayerNorm([| 4L |]) :> Module<Tensor, Tensor>), ("relu", ReLU() :> Module<Tensor, Tensor>))
    let emb = Embedding(10L, 4L)
    let d = serialize <@ fun (ids: Tensor) -> ids --> emb --> seq @> None
    let cs = calls d.Json
    Assert.Contains("layer_norm", cs)
    Assert.Contains("relu", cs)
    Assert.Contains("index", cs)
    Assert.Equal<string list>([ "emb_weight"; "seq_ln_bias"; "seq_ln_weight" ], d.Captures |> List.map (fun c -> c.Name) |> List.sort)

type Stack(d: int64) as this =
    inherit Module<Tensor, Tensor>("stack")
    let layers = ModuleList<Module<Tensor, Tensor>>([| LayerNorm([| d |]) :> Module<Tensor, Tensor>; ReLU(); Tanh() |])
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: Tensor) =
        let mutable h = x
        for layer in layers do
            h <- layer.forward h
        h

[<Fact>]
let ``a for loop over a ModuleList is unrolled, one body per layer`` () =
    let m = new Stack(4L)
    let d = serialize <@ fun (x: Tensor) -> m.forward x @> None
    Assert.Equal<string list>([ "layer_norm"; "relu"; "tanh" ], calls d.Json |> List.filter (fun n -> n <> "op_Addition"))
    Assert.Equal<string list>([ "m_layers_0_bias"; "m_layers_0_weight" ], d.Captures |> List.map (fun c -> c.Name) |> List.sort)
    Assert.DoesNotContain("WhileLoop", parse d.Json |> nodes |> Seq.map kind)

[<Fact>]
let ``an unknown module is an error naming its type and path`` () =
    let m = new WithConv()
    let ex = Assert.Throws<Serializer.SerializeError>(fun () -> serialize <@ fun (x: Tensor) -> m.forward x @> None |> ignore)
    Assert.Contains("TorchSharp.Modules.Conv3d", ex.Data0)
    Assert.Contains("m_conv", ex.Data0)
    Assert.Contains("ModuleTests.fs:", ex.Data0)

/// TorchSharpExamples' F# MNIST model (src/FSharp/FSharpExamples/MNIST.fs) as written, with
/// the one attribute F# needs to keep forward's body. Its chain of `-->` reaches each field;
/// the convolutions expand (issue 12), so expansion gets past them (to the first module not
/// expanded yet, if any: MaxPool2d and LogSoftmax are other work of the same issue).
type MnistModel(name, device: torch.Device) as this =
    inherit Module<torch.Tensor, torch.Tensor>(name)
    let conv1 = Conv2d(1L, 32L, 3L)
    let conv2 = Conv2d(32L, 64L, 3L)
    let fc1 = Linear(9216L, 128L)
    let fc2 = Linear(128L, 10L)
    let pool1 = MaxPool2d(kernel_size = [| 2L; 2L |])
    let relu = ReLU()
    let dropout1 = Dropout(0.25)
    let dropout2 = Dropout(0.5)
    let flatten = Flatten()
    let logsm = LogSoftmax(1L)
    do
        this.RegisterComponents()
        if device.``type`` = DeviceType.CUDA then this.``to``(device) |> ignore

    [<ReflectedDefinition>]
    override _.forward(input) =
        input
        --> conv1 --> relu --> conv2 --> relu --> pool1 --> dropout1
        --> flatten
        --> fc1 --> relu --> dropout2 --> fc2
        --> logsm

[<Fact>]
let ``the MNIST model of TorchSharpExamples, as written, expands past its convolutions`` () =
    let model = new MnistModel("model", torch.CPU)
    try
        let d = serialize <@ fun (x: Tensor) -> model.forward x @> None
        Assert.Contains("conv2d", calls d.Json)
    with :? Serializer.SerializeError as ex ->
        Assert.DoesNotContain("model_conv", ex.Data0)
        Assert.Contains("of type TorchSharp.Modules.", ex.Data0)

// ---- what real model code needed (examples/models, docs/models.md) ----------------------------

/// A forward of several arguments (Module<T1, T2, T3, TResult>, as attention modules take the
/// hidden states, position ids and a mask), a helper member called on `this`, a registered buffer
/// read by name, a field tested for null.
[<AllowNullLiteral>]
type Rotary(dim: int64) as this =
    inherit Module<Tensor, Tensor, Tensor * Tensor>("rotary")
    do this.register_buffer("inv_freq", torch.arange(0L, dim, 2L, dtype = torch.float32), persistent = false)

    [<ReflectedDefinition>]
    override this.forward(x: Tensor, positions: Tensor) =
        let freqs = this.get_buffer("inv_freq").unsqueeze(0L) * positions.unsqueeze(-1L).to_type(x.dtype)
        (freqs.cos(), freqs.sin())

type Attn(d: int64) as this =
    inherit Module<Tensor, Tensor, Tensor, Tensor>("attn")
    let proj = Linear(d, d, hasBias = false)
    let rotary = new Rotary(d)
    let missing : Rotary = null
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    member private _.Scale(t: Tensor) = t * 0.5f

    [<ReflectedDefinition>]
    override this.forward(x: Tensor, positions: Tensor, mask: Tensor) =
        let cos, sin = rotary.forward(x, positions)
        let h = if isNull missing then this.Scale(proj.forward x) else x
        let h = if isNull proj then x else h
        h * cos + sin + mask

[<Fact>]
let ``a forward of several arguments, a helper member, a buffer by name and null tests of fields`` () =
    let m = new Attn(4L)
    let d = serialize <@ fun (x: Tensor) (p: Tensor) (mask: Tensor) -> m.forward(x, p, mask) @> None
    let cs = calls d.Json
    Assert.DoesNotContain("forward", cs)
    Assert.DoesNotContain("Scale", cs)
    Assert.DoesNotContain("get_buffer", cs)
    Assert.DoesNotContain("IsNull", cs)
    Assert.Contains("linear", cs)
    Assert.Contains("cos", cs)
    Assert.Equal<string list>([ "m_proj_weight"; "m_rotary_inv_freq" ], d.Captures |> List.map (fun c -> c.Name) |> List.sort)
    Assert.Same(m.get_buffer("rotary.inv_freq"), (d.Captures |> List.find (fun c -> c.Name = "m_rotary_inv_freq")).Value)
    // isNull of a field read through the live module is a constant: the null field true, proj false
    let bools =
        parse d.Json |> nodes |> Seq.filter (fun n -> kind n = "Value" && (prop "value" n).ValueKind <> System.Text.Json.JsonValueKind.Object)
        |> Seq.map (fun n -> (prop "value" n).GetRawText()) |> List.ofSeq
    Assert.Contains("true", bools)
    Assert.Contains("false", bools)
    // the parameters of the inlined forwards are bound by Lets, no tuple of arguments remains
    let vars = [ for v in (parse d.Json |> prop "vars").EnumerateArray() -> v |> prop "name" |> str ]
    Assert.DoesNotContain("tupledArg", vars)
    Assert.Contains("positions", vars)

type NoBody() =
    inherit Module<Tensor, Tensor, Tensor>("nobody")
    override _.forward(x: Tensor, y: Tensor) = x + y

[<Fact>]
let ``a forward of several arguments without a reflected body is an error naming the module`` () =
    let m = new NoBody()
    let ex = Assert.Throws<Serializer.SerializeError>(fun () -> serialize <@ fun (x: Tensor) (y: Tensor) -> m.forward(x, y) @> None |> ignore)
    Assert.Contains("'m' of type Kgen.Tests.ModuleTests+NoBody", ex.Data0)
    Assert.Contains("not marked [<ReflectedDefinition>]", ex.Data0)

/// A module built from a function at run time (TorchSharp.Fun's FuncModel): its forward is the
/// quotation it carries; what it captures is named by where it registered it.
type Quoted(name: string, children: (string * Module<Tensor, Tensor>) list, fwd: Expr<Tensor -> Tensor>) as this =
    inherit Module<Tensor, Tensor>(name)
    do for (n, c) in children do this.register_module(n, c)
    override _.forward(x) = (Eval.run fwd :?> (Tensor -> Tensor)) x
    interface IQuotedForward with
        member _.Forward = fwd :> Expr

[<Fact>]
let ``a module carrying its forward as a quotation is inlined, its captures named by registration`` () =
    let mk () =
        let l1 = Linear(4L, 4L) :> Module<Tensor, Tensor>
        let act = SELU() :> Module<Tensor, Tensor>
        new Quoted("q", [ "fc"; "act" ] |> List.zip <| [ l1; act ], <@ fun t -> t --> l1 --> act @>)
    // two quoted modules capture different Linears under the same local name `l1`
    let a, b = mk (), mk ()
    let d = serialize <@ fun (x: Tensor) -> b.forward(a.forward x) @> None
    let cs = calls d.Json
    Assert.Contains("selu", cs)
    Assert.Equal(2, cs |> List.filter ((=) "linear") |> List.length)
    Assert.Equal<string list>([ "a_fc_bias"; "a_fc_weight"; "b_fc_bias"; "b_fc_weight" ], d.Captures |> List.map (fun c -> c.Name) |> List.sort)

[<Fact>]
let ``capture names are identifiers: an Embedding's own name has colons`` () =
    let emb = Embedding(5L, 3L)
    let q = new Quoted("q", [ emb.GetName(), emb :> Module<Tensor, Tensor> ], <@ fun t -> t --> emb @>)
    let d = serialize <@ fun (ids: Tensor) -> q.forward ids @> None
    Assert.Equal<string list>([ "q_torch__nn__EmbeddingImpl_weight" ], d.Captures |> List.map (fun c -> c.Name))

[<Fact>]
let ``documents deeper than System.Text.Json's default 64 levels serialize`` () =
    // a whole model forward is a long chain of lets (one level each)
    let x = Var("x", typeof<Tensor>)
    let body =
        List.init 150 (fun i -> Var(sprintf "h%d" i, typeof<Tensor>))
        |> List.fold (fun (prev: Var, k: Expr -> Expr) v ->
            v, (fun inner -> k (Expr.Let(v, <@@ (%%(Expr.Var prev): Tensor).relu() @@>, inner)))) (x, id)
        |> fun (last, k) -> k (Expr.Var last)
    let d = serialize (Expr.Lambda(x, body)) None
    Assert.Equal(150, calls d.Json |> List.filter ((=) "relu") |> List.length)

/// A module over an input class (Phi-3's and GenAI's attention modules take one): its forward for
/// the argument's type is inlined like any other.
type AttnInput = { Hidden: Tensor; Scale: float32 }

type OverInput() =
    inherit Module<AttnInput, Tensor>("overinput")

    [<ReflectedDefinition>]
    override _.forward(input: AttnInput) = input.Hidden * input.Scale

[<Fact>]
let ``a forward over an input class is inlined`` () =
    let m = new OverInput()
    let d = serialize <@ fun (x: Tensor) -> m.forward({ Hidden = x; Scale = 0.5f }) @> None
    Assert.DoesNotContain("forward", calls d.Json)
    Assert.Contains("NewRecord", parse d.Json |> nodes |> Seq.map kind)

[<Fact>]
let ``recurrent cells expand into ATen's cell arithmetic, their parameters captured once`` () =
    let lstm = LSTMCell(4L, 3L)
    let d = serialize <@ fun (x: Tensor) (h: Tensor) (c: Tensor) ->
                            let struct (h2, c2) = lstm.forward(x, System.Nullable<struct (Tensor * Tensor)>(struct (h, c)))
                            h2 + c2 @> None
    let cs = calls d.Json
    Assert.Equal(2, cs |> List.filter ((=) "linear") |> List.length)
    Assert.Contains("chunk", cs)
    for n in [ "lstm_weight_ih"; "lstm_weight_hh"; "lstm_bias_ih"; "lstm_bias_hh" ] do
        Assert.Contains("\"" + n + "\"", d.Json)
    // a GRUCell used twice (two steps) captures each parameter under one name, one object
    let gru = GRUCell(4L, 3L)
    let d2 = serialize <@ fun (x: Tensor) (h: Tensor) -> gru.forward(x, gru.forward(x, h)) @> None
    Assert.Equal(4, calls d2.Json |> List.filter ((=) "linear") |> List.length)

[<Fact>]
let ``an RNNCell's nonlinearity is told by a probe forward`` () =
    let tanhCell = RNNCell(5L, 3L)
    let reluCell = RNNCell(5L, 3L, NonLinearities.ReLU)
    Assert.Contains("tanh", calls (serialize <@ fun (x: Tensor) (h: Tensor) -> tanhCell.forward(x, h) @> None).Json)
    let cs = calls (serialize <@ fun (x: Tensor) (h: Tensor) -> reluCell.call(x, h) @> None).Json
    Assert.Contains("relu", cs)
    Assert.DoesNotContain("tanh", cs)

[<Fact>]
let ``a cell without an explicit state is an error naming it`` () =
    let gru = GRUCell(4L, 3L)
    let ex = Assert.Throws<Serializer.SerializeError>(fun () -> serialize <@ fun (x: Tensor) -> gru.forward(x, null) @> None |> ignore)
    Assert.Contains("module 'gru' (GRUCell): pass its state explicitly", ex.Data0)
