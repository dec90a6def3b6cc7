// torchsharp_fun: the models of TorchSharp.Fun (function-composition model building for F#:
// `F` makes a module of a function, `->>` / `=>>` chain modules), with the library's core
// (IModel, FuncModel, M, F, =>>, ->>) ported alongside.
//
// Source: https://github.com/fwaris/TorchSharp.Fun, commit c670f4acb7d704194a48cc3845707b91554489e0
//   TorchSharp.Fun/TorchSharp.Fun.fs (the library: IModel, FuncModel, M, F, =>>, ->>, makeUnique),
//   TorchSharp.Fun.Test/UnitTest1.fs (the models: CreateModel, CreateModelWithNames,
//   ``function model``, resnetModel's feature tower; readme.md's model is CreateModel with an
//   EmbeddingBag)
// The one change kgen needs: F takes its function quoted, `F [] [] <@ fun z -> ... @>` where the
// library takes `F [] [] (fun z -> ...)`. A FuncModel's forward is a closure built at run time;
// F# keeps no body of a closure (there is nothing to put [<ReflectedDefinition>] on), so the port's
// FuncModel keeps the quotation, runs it (Kgen.Eval) and gives it to kgen (Kgen.IQuotedForward);
// `=>>` quotes its sequential forward the same way, and M's wrapper of a plain module says its
// forward is the module's (Kgen.IQuotedForward). Left out: Fx and Args (forwards over a
// dictionary of extra arguments: resnetModel's era input), Ref<Parameter> / Ref<Tensor>
// dependents, the device-moving override.
// Sizes: the tests' own for the embedding MLP (5 ids, 256 -> 50 -> 50 -> 20) and the two Linear
// layers (10); the residual tower at width 64 from 128 features (the test: 512 from 2048).
module Models.TorchSharpFun

open System
open TorchSharp
open type TorchSharp.torch.nn
open Microsoft.FSharp.Quotations

// ---- TorchSharp.Fun/TorchSharp.Fun.fs (the core the models use) ------------------------------

type IModel =
    abstract forward : torch.Tensor -> torch.Tensor
    abstract Module : Module

let parseName (n: string) =
    let i = n.LastIndexOf("_")
    if i < 0 then
        n, 0
    else
        let rs = n.Substring(i + 1)
        let num =
            match Int32.TryParse rs with
            | true, x -> x
            | false, _ -> 0
        let prefix = n.Substring(0, i)
        prefix, num

let makeUnique name names =
    let rec makeUnique name names =
        match names with
        | [] -> name
        | x :: rest when name = x ->
            let n, num = parseName x
            let n2 = $"{n}_{num + 1}"
            makeUnique n2 rest
        | _ :: rest -> makeUnique name rest
    makeUnique name (List.sort names)

///convert object to IModel if convertible
let inline M< ^Q when ^Q : (member forward : torch.Tensor -> torch.Tensor)> (mdl: ^Q) =
    match box mdl with
    | :? IModel as f -> f
    | :? Module as m ->
        { new IModel with
            member x.forward(t) = (^Q : (member forward : torch.Tensor -> torch.Tensor) (mdl, t))
            member _.Module = m
          // the port: what the wrapper's forward is, for kgen (the wrapped module's forward)
          interface Kgen.IQuotedForward with
            member _.Forward =
                let m = m :?> Module<torch.Tensor, torch.Tensor>
                <@ fun (t: torch.Tensor) -> m.forward t @> :> Expr }
    | x -> failwith $"{x} is not convertible to IModel"

type Dependent =
    | Md of Module
    | Im of IModel

let toDep (o: obj) =
    match o with
    | :? Module as m -> Md m
    | :? IModel as m -> Im m
    | x -> failwith $"{x} cannot be registered as dependent of a module. Valid dependents are torch.nn.Module and IModel"

let genNames (deps: Dependent seq) =
    ([], deps)
    ||> Seq.fold (fun acc d ->
        let n =
            match d with
            | Md m -> m.GetName()
            | Im m -> m.Module.GetName()
        let n = makeUnique n (List.map fst acc)
        (n, d) :: acc)
    |> List.rev

///supporting class for creating 'forward' functions in a 'functional' way.
type FuncModel(name, dependents: (string * Dependent) seq, fwd: Expr<torch.Tensor -> torch.Tensor>) as this =
    inherit Module<torch.Tensor, torch.Tensor>(name)
    // the port: the forward runs its quotation (the library: `fwd: torch.Tensor -> torch.Tensor`)
    let run = Kgen.Eval.run fwd :?> (torch.Tensor -> torch.Tensor)
    do
        dependents
        |> Seq.iter (fun (n, d) ->
            match d with
            | Md m -> this.register_module(n, m)
            | Im m -> this.register_module(n, m.Module))

    override this.forward(t) = let t' = run t in t'
    member this.Module : Module = this :> _

    interface IModel with
        member this.forward(t) = this.forward(t)
        member this.Module = this :> _

    interface Kgen.IQuotedForward with
        member _.Forward = fwd :> Expr

let checkNames names dependents =
    if Seq.length names <> Seq.length dependents + 1 then
        failwithf $"number of names should be 1 + the-number-of-child-modules. The first name is for the module itself. Expecting {Seq.length dependents + 1} name(s) but got {Seq.length names}"

///Create a model (module) from the given function and register the childModules and parameters, if not empty
///If names is not empty, the function and its children will be assigned the given names. Count of names is 1 + number of childModules
let F (names: string seq) (dependents: obj seq) (fwd: Expr<torch.Tensor -> torch.Tensor>) =
    if Seq.isEmpty names then
        let ds = dependents |> Seq.map toDep |> genNames
        let p = new FuncModel("funcModel", ds, fwd)
        p :> IModel
    else
        checkNames names dependents
        let ds = dependents |> Seq.map toDep |> Seq.zip (Seq.tail names)
        let p = new FuncModel(Seq.head names, ds, fwd)
        p :> IModel

let inline (=>>) m1 (n, m2) =
    let m1 = M m1
    let m2 = M m2

    // the library: let seqFwd = sequentialFwd m1 m2 (use t' = m1.forward(t) in m2.forward(t'))
    let mod1, mod2 = m1.Module :?> Module<torch.Tensor, torch.Tensor>, m2.Module :?> Module<torch.Tensor, torch.Tensor>
    let seqFwd = <@ fun (t: torch.Tensor) -> (use t' = mod1.forward(t) in mod2.forward(t')) @>
    let m1Name = makeUnique (m1.Module.GetName()) [ n ]
    new FuncModel("funcModelSeq", [ m1Name, toDep m1; n, toDep m2 ], seqFwd) :> IModel

let inline (->>) m1 m2 =
    let m1 = M m1
    let m2 = M m2
    m1 =>> (m2.Module.GetName(), m2)

// ---- TorchSharp.Fun.Test/UnitTest1.fs: the models ----------------------------------------------

// CreateModel
let create () =
    let EMB_INDX_DIM = 5L
    let EMB_DIM = 256L
    let BTL_N = 50L
    let BASE_TGTS = 20L

    let lisht () =
        F [] [] <@ fun z ->
            use g = torch.nn.functional.tanh(z)
            z * g @>

    let model =
        torch.nn.Embedding(num_embeddings = EMB_INDX_DIM, embedding_dims = EMB_DIM)
        ->> torch.nn.Linear(EMB_DIM, BTL_N)
        ->> lisht ()
        ->> torch.nn.Dropout(0.1)
        ->> torch.nn.Linear(BTL_N, BTL_N)
        ->> lisht ()
        ->> torch.nn.Dropout(0.1)
        ->> torch.nn.Linear(BTL_N, BASE_TGTS)
    model

// CreateModelWithNames
let createNamed () =
    let EMB_INDX_DIM = 5L
    let EMB_DIM = 256L
    let BTL_N = 50L
    let BASE_TGTS = 20L

    let lisht () =
        F [] [] <@ fun z ->
            use g = torch.nn.functional.tanh(z)
            z * g @>

    let model =
        torch.nn.Embedding(EMB_INDX_DIM, EMB_DIM)
        =>> ("emb", torch.nn.Linear(EMB_DIM, BTL_N))
        =>> ("ls", lisht ())
        =>> ("drop", torch.nn.Dropout(0.1))
        =>> ("proj1", torch.nn.Linear(BTL_N, BTL_N))
        =>> ("ls2", lisht ())
        =>> ("drop2", torch.nn.Dropout(0.1))
        =>> ("proj20", torch.nn.Linear(BTL_N, BASE_TGTS))
    model

// ``function model``
let functionModel () =
    let l1 = torch.nn.Linear(10, 10)
    let l2 = torch.nn.Linear(10, 10)

    let model = F [] [ l1; l2 ] <@ fun t -> t --> l1 --> l2 @>
    model

// resnetModel: its feature tower (the Fx model around it adds the `era` input through Args)
let resnetFeatures () =
    let D_MODEL = 64
    let FTR_DIM = 128
    let RESNET_DEPTH = 2

    let inline resnetCell act (input: IModel) =
        let cell =
            torch.nn.Linear(D_MODEL, D_MODEL) //weight layer 1
            ->> torch.nn.Dropout()
            ->> act ()
            ->> torch.nn.Linear(D_MODEL, D_MODEL)
        let join =
            F [] [ input; cell ] <@ fun ``input tensor`` ->
                use t1 = input.forward ``input tensor``
                use t2 = cell.forward t1
                t1 + t2 @>
        join ->> act ()

    let ftrModel =
        let emb = torch.nn.Linear(FTR_DIM, D_MODEL, hasBias = false) |> M
        let rsLayers =
            (emb, [ 1 .. RESNET_DEPTH ])
            ||> List.fold (fun emb _ -> resnetCell torch.nn.SELU emb)
        rsLayers
    ftrModel

// ---- the entries --------------------------------------------------------------------------------

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let private evaluating (m: IModel) = m.Module.eval() |> ignore; m

let model = create () |> evaluating
let modelNamed = createNamed () |> evaluating
let fmodel = functionModel () |> evaluating
let resnet = resnetFeatures () |> evaluating

// token ids in [0, 5): the vocabulary
[<Kgen.Entry("int64[16] in [0, 5)")>]
let fun_create_model = <@ fun (x: torch.Tensor) -> model.forward x @>

[<Kgen.Entry("int64[16] in [0, 5)")>]
let fun_create_model_with_names = <@ fun (x: torch.Tensor) -> modelNamed.forward x @>

[<Kgen.Entry("float32[1,10]")>]
let fun_function_model = <@ fun (t: torch.Tensor) -> fmodel.forward t @>

[<Kgen.Entry("float32[8,128]")>]
let fun_resnet_features = <@ fun (t: torch.Tensor) -> resnet.forward t @>
