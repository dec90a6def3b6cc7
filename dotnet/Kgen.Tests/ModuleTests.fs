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
    let conv = Conv2d(3L, 4L, 3L)
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
    Assert.Contains("TorchSharp.Modules.Conv2d", ex.Data0)
    Assert.Contains("m_conv", ex.Data0)
    Assert.Contains("ModuleTests.fs:", ex.Data0)

/// TorchSharpExamples' F# MNIST model (src/FSharp/FSharpExamples/MNIST.fs) as written, with
/// the one attribute F# needs to keep forward's body. Its chain of `-->` reaches each field;
/// the convolution is issue 12's work, so expansion stops there with the module's type.
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
let ``the MNIST model of TorchSharpExamples, as written, expands up to its first convolution`` () =
    let model = new MnistModel("model", torch.CPU)
    let ex = Assert.Throws<Serializer.SerializeError>(fun () -> serialize <@ fun (x: Tensor) -> model.forward x @> None |> ignore)
    Assert.Contains("'model_conv1' of type TorchSharp.Modules.Conv2d", ex.Data0)
