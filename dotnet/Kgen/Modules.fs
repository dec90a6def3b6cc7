// Kgen.Modules: TorchSharp modules expanded into the functional calls kgen compiles.
//
// A quotation over a model reaches live module objects: a captured local (ValueWithName), a
// module-level value (a static PropertyGet), or `this` inside a [<ReflectedDefinition>]
// forward, and from them fields (`this.fc1`, FieldGet/PropertyGet). Only the .NET side can
// see those objects, their hyperparameters and their parameter tensors, so the serializer
// expands them here, and the document keeps the spec's vocabulary (functional calls and
// captured tensors): the C side needs no knowledge of modules (docs/fsharp.md "Modules").
//   - an application `m.forward x`, `m.call x`, `x --> m` of a known module becomes its
//     functional form, e.g. Linear -> torch.nn.functional.linear(x, W, b) with W and b
//     captured tensors named after the path to them (`model_fc1_weight`);
//   - Sequential is the chain of its children; a user module whose forward is a
//     [<ReflectedDefinition>] member is inlined with `this` bound to the live object;
//   - a parameter or a number read through a live module (`this.scale`, `this.n_head`)
//     becomes a captured tensor or a constant;
//   - any other module is an error naming its type.
// Generated nodes carry no DebugRange: the serializer gives them the call site's.
module Kgen.Modules

open System
open System.Reflection
open Microsoft.FSharp.Quotations
open Microsoft.FSharp.Quotations.Patterns
open TorchSharp
open TorchSharp.Modules

type private Tensor = torch.Tensor

/// A live object reached from the quotation, with the path that names it.
type Live = { Obj: obj; Path: string }

/// A module this expansion cannot handle.
exception ModuleError of string

let private methodOf (e: Expr) =
    match e with
    | Call(_, mi, _) -> mi
    | Lambda(_, Call(_, mi, _)) -> mi
    | _ -> invalidOp (sprintf "not a call: %A" e)

let private t0 = Unchecked.defaultof<Tensor>
let private mLinear = methodOf <@ torch.nn.functional.linear(t0, t0, t0) @>
let private mLayerNorm = methodOf <@ torch.nn.functional.layer_norm(t0, [| 1L |], t0, t0, 1e-5) @>
let private mDropout = methodOf <@ torch.nn.functional.dropout(t0, 0.5, true, false) @>
let private mRelu = methodOf <@ t0.relu() @>
let private mAddInPlace = methodOf <@ t0.add_(TorchSharp.Scalar.op_Implicit 1L) @>
let private mGelu = methodOf <@ t0.gelu(GELU.Approximate.none) @>
let private mSilu = methodOf <@ t0.silu() @>
let private mTanh = methodOf <@ t0.tanh() @>
let private mSigmoid = methodOf <@ t0.sigmoid() @>
let private mHardswish = methodOf <@ t0.hardswish() @>
let private mMish = methodOf <@ torch.nn.functional.mish(t0, false) @>
let private mElu = methodOf <@ t0.elu(1.0) @>
let private mLeaky = methodOf <@ t0.leaky_relu(Scalar.op_Implicit 0.01) @>
let private mScalarOfDouble = methodOf <@ Scalar.op_Implicit(0.01) @>
let private mSelu = methodOf <@ t0.selu() @>
let private mSoftplus = methodOf <@ t0.softplus(1.0, 20.0) @>
let private mSoftmax = methodOf <@ t0.softmax(0L, Nullable()) @>
let private mLogSoftmax = methodOf <@ torch.nn.functional.log_softmax(t0, 0L) @>
let private mRelu6 = methodOf <@ torch.nn.functional.relu6(t0, false) @>
let private mIndex = methodOf <@ t0.index([| torch.TensorIndex.Tensor t0 |]) @>
let private mTensorIndex = methodOf <@ torch.TensorIndex.Tensor t0 @>
let private mIsNull = (methodOf <@ isNull (null: obj) @>).GetGenericMethodDefinition()
// pooling, normalization over channels, resampling (issue 12): the functional forms each module's
// forward calls in TorchSharp 0.107
let private mBatchNorm = methodOf <@ torch.nn.functional.batch_norm(t0, t0, t0, t0, t0, false, 0.1, 1e-5) @>
let private mInstanceNorm = methodOf <@ torch.nn.functional.instance_norm(t0, t0, t0, t0, t0, true, 0.1, 1e-5) @>
let private mGroupNorm = methodOf <@ torch.nn.functional.group_norm(t0, 1L, t0, t0, 1e-5) @>
let private mMaxPool1d = methodOf <@ torch.nn.functional.max_pool1d(t0, 2L, Nullable(), Nullable(), Nullable(), false) @>
let private mMaxPool2d = methodOf <@ torch.nn.functional.max_pool2d(t0, [| 2L |], null, null, null, false) @>
let private mAvgPool1d = methodOf <@ torch.nn.functional.avg_pool1d(t0, 2L, Nullable(), Nullable(), false, true) @>
let private mAvgPool2d = methodOf <@ torch.nn.functional.avg_pool2d(t0, [| 2L |], null, null, false, true, Nullable()) @>
let private mAdaptiveAvg1d = methodOf <@ torch.nn.functional.adaptive_avg_pool1d(t0, 1L) @>
let private mAdaptiveAvg2d = methodOf <@ torch.nn.functional.adaptive_avg_pool2d(t0, [| 1L |]) @>
let private mAdaptiveMax1d = methodOf <@ torch.nn.functional.adaptive_max_pool1d(t0, 1L) @>
let private mAdaptiveMax2d = methodOf <@ torch.nn.functional.adaptive_max_pool2d(t0, [| 1L |]) @>
let private mInterpolate =
    methodOf <@ torch.nn.functional.interpolate(t0, null, null, torch.InterpolationMode.Nearest, Nullable(), false, false) @>
let private mPixelShuffle = methodOf <@ torch.nn.functional.pixel_shuffle(t0, 2L) @>
let private mPixelUnshuffle = methodOf <@ torch.nn.functional.pixel_unshuffle(t0, 2L) @>
let private mFlatten = methodOf <@ t0.flatten(1L, -1L) @>
// convolutions (issue 12): each module as the functional call its forward makes
let private mConv1d = methodOf <@ torch.nn.functional.conv1d(t0, t0, t0, Nullable 1L, Nullable 0L, Nullable 1L, 1L) @>
let private mConv1dPadding = methodOf <@ torch.nn.functional.conv1d_padding(t0, t0, t0, Nullable 1L, Padding.Same, Nullable 1L, 1L) @>
let private mConv2d = methodOf <@ torch.nn.functional.conv2d(t0, t0, t0, [| 1L |], [| 0L |], [| 1L |], 1L) @>
let private mConv2dPadding = methodOf <@ torch.nn.functional.conv2d_padding(t0, t0, t0, [| 1L |], Padding.Same, [| 1L |], 1L) @>
let private mConvT1d = methodOf <@ torch.nn.functional.conv_transpose1d(t0, t0, t0, Nullable 1L, Nullable 0L, Nullable 0L, Nullable 1L, 1L) @>
let private mConvT2d = methodOf <@ torch.nn.functional.conv_transpose2d(t0, t0, t0, [| 1L |], [| 0L |], [| 0L |], [| 1L |], 1L) @>
let private mPad = methodOf <@ torch.nn.functional.pad(t0, [| 0L |], PaddingModes.Constant, 0.0) @>
let private nullableCtor = typeof<Nullable<int64>>.GetConstructor([| typeof<int64> |])
let private mForward =
    typeof<torch.nn.Module<Tensor, Tensor>>.GetMethod("forward", [| typeof<Tensor> |])

/// A live object the serializer applies: a TorchSharp module, or an object carrying its forward
/// as a quotation (Kgen.IQuotedForward, such as a functional library's model wrapper).
let isModule (o: obj) = o :? torch.nn.Module || o :? Kgen.IQuotedForward

/// A Nullable<'T> argument as F# quotes one: null, or `Nullable(v)` (a NewObject).
let private nullable<'T when 'T: struct and 'T: (new: unit -> 'T) and 'T :> ValueType> (v: Nullable<'T>) : Expr =
    if v.HasValue then Expr.NewObject(typeof<Nullable<'T>>.GetConstructor([| typeof<'T> |]), [ Expr.Value(v.Value, typeof<'T>) ])
    else Expr.Value(null, typeof<Nullable<'T>>)

/// `fc1@12` (an F# let field) -> `fc1`.
let private memberName (n: string) =
    match n.IndexOf '@' with
    | -1 -> n
    | i -> n.Substring(0, i)

/// A name as an identifier of C, Python and compact signatures: other characters become '_'
/// (an Embedding names itself `torch::nn::EmbeddingImpl`, an F# local may be ``input tensor``).
let private ident (n: string) =
    String(n.ToCharArray() |> Array.map (fun c -> if (Char.IsAsciiLetterOrDigit c) || c = '_' then c else '_'))

let join (path: string) (n: string) = if path = "" then ident (memberName n) else path + "_" + ident (memberName n)

/// A tensor read through a live module: a named capture.
let private capture (path: string) (t: Tensor) : Expr =
    if isNull t then Expr.Value(null, typeof<Tensor>) else Expr.ValueWithName(t, typeof<Tensor>, path)

/// The live object an expression denotes, if it is reached from live roots only.
let rec live (vars: Var -> Live option) (e: Expr) : Live option =
    let step (inner: Expr) (get: obj -> obj) (name: string) =
        live vars inner
        |> Option.map (fun l ->
            let v =
                try get l.Obj
                with ex -> raise (ModuleError(sprintf "reading '%s' of '%s' failed: %s" name l.Path ex.Message))
            { Obj = v; Path = join l.Path name })
    match e with
    | ValueWithName(o, _, n) when isModule o -> Some { Obj = o; Path = ident n }
    | Var v -> vars v
    | Coerce(x, _) -> live vars x
    | FieldGet(Some x, f) -> step x f.GetValue f.Name
    | PropertyGet(Some x, p, []) -> step x p.GetValue p.Name
    | PropertyGet(None, p, []) when typeof<torch.nn.Module>.IsAssignableFrom p.PropertyType ->
        Some { Obj = p.GetValue null; Path = p.Name }
    | PropertyGet(None, p, []) when p.PropertyType.IsInterface ->
        // a module-level value typed by an interface it implements (TorchSharp.Fun's IModel)
        let v = p.GetValue null
        if isModule v then Some { Obj = v; Path = p.Name } else None
    | FieldGet(None, f) when typeof<torch.nn.Module>.IsAssignableFrom f.FieldType ->
        Some { Obj = f.GetValue null; Path = f.Name }
    | _ -> None

/// A quoted forward's captured values (ValueWithName: the modules and tensors its closure
/// holds, named after F# locals) renamed by where the live module `l` registered them: a child
/// module `m_Linear_1`, a parameter or buffer `m_w`; anything else `m_<local name>`. So two
/// quoted forwards capturing different objects under the same local name stay apart.
let private renameCaptures (l: Live) (body: Expr) =
    let registered =
        match l.Obj with
        | :? torch.nn.Module as m ->
            [ for struct (n, c) in m.named_children() -> box c, n
              for struct (n, p) in m.named_parameters(false) -> box p, n
              for struct (n, b) in m.named_buffers(false) -> box b, n ]
        | _ -> []
    let nameOf (o: obj) (local: string) =
        match registered |> List.tryFind (fun (r, _) -> Object.ReferenceEquals(r, o)) with
        | Some(_, n) -> join l.Path (n.Replace('.', '_'))
        | None -> join l.Path local
    let rec go (e: Expr) =
        match e with
        | ValueWithName(o, t, n) when not (isNull o) && not (t.IsPrimitive || t.IsEnum || t = typeof<string>) ->
            Expr.ValueWithName(o, t, nameOf o n)
        | ExprShape.ShapeVar _ -> e
        | ExprShape.ShapeLambda(v, b) -> Expr.Lambda(v, go b)
        | ExprShape.ShapeCombination(shape, args) -> ExprShape.RebuildShapeCombination(shape, List.map go args)
    go body

/// The reflected body of the method `name` the live object runs for these parameter types (the
/// most derived override: virtual dispatch on the live object): Lambda(this, Lambda(..., body)).
let private userMethod (o: obj) (name: string) (types: Type[]) =
    let mi =
        try o.GetType().GetMethod(name, BindingFlags.Public ||| BindingFlags.NonPublic ||| BindingFlags.Instance, null, types, null)
        with :? AmbiguousMatchException -> null
    if isNull mi then None else Expr.TryGetReflectedDefinition mi

let private userForward (m: obj) = userMethod m "forward" [| typeof<Tensor> |]

/// A reflected method's parameters bound to a call's arguments, as Lets around its body. F#
/// quotes a method of one parameter as Lambda(p, body), of none as Lambda(unit, body), and of
/// several as one tupled lambda Lambda(tupledArg, Let(p1, TupleGet(tupledArg, 0), ...)).
let bindParams (lam: Expr) (args: Expr list) : Expr option =
    match lam, args with
    | Lambda(u, body), [] when u.Type = typeof<unit> -> Some(Expr.Let(u, Expr.Value(()), body))
    | Lambda(p, body), [ x ] -> Some(Expr.Let(p, x, body))
    | Lambda(t, body), _ :: _ :: _ ->
        let rec peel (b: Expr) acc =
            match b with
            | Let(p, TupleGet(Var t', i), rest) when t' = t -> peel rest ((p, i) :: acc)
            | rest -> List.rev acc, rest
        let binds, rest = peel body []
        let args = Array.ofList args
        if binds.Length = args.Length && binds |> List.forall (fun (_, i) -> i < args.Length) then
            Some(List.foldBack (fun (p: Var, i) b -> Expr.Let(p, args.[i], b)) binds rest)
        else Some(Expr.Let(t, Expr.NewTuple(List.ofArray args), body))
    | _ -> None

/// A Nullable<int64> argument as F# writes it (`Nullable 2L`), or null.
let private nullableOf (v: int64 option) =
    match v with
    | Some v -> Expr.NewObject(nullableCtor, [ Expr.Value v ])
    | None -> Expr.DefaultValue typeof<Nullable<int64>>

/// Conv1d / Conv2d / ConvTranspose1d / ConvTranspose2d as their forwards call the functional
/// form (TorchSharp 0.107, NN/Convolution/*.cs): a padding mode other than Zeros pads the input
/// first by the module's own _reversed_padding_repeated_twice (read as the forward reads it), a
/// Padding (Valid / Same) goes to conv{1,2}d_padding, numbers to conv{1,2}d.
let private convolution (l: Live) (m: Convolution) (x: Expr) =
    let w = capture (join l.Path "weight") m.weight
    let b = capture (join l.Path "bias") m.bias
    let arr (a: int64[]) = Expr.Value a
    let one (a: int64[]) = nullableOf (Some a.[0])
    let g = Expr.Value m.groups
    let padded () =
        let f = typeof<Convolution>.GetField("_reversed_padding_repeated_twice", BindingFlags.NonPublic ||| BindingFlags.Instance)
        let rev = f.GetValue m :?> int64[]
        Expr.Call(mPad, [ x; Expr.Value rev; Expr.Value m.padding_mode; Expr.Value 0.0 ])
    let zeros = m.kernel_size |> Array.map (fun _ -> 0L)
    match m with
    | :? ConvTranspose1d ->
        Expr.Call(mConvT1d, [ x; w; b; one m.stride; one m.padding; one m.output_padding; one m.dilation; g ])
    | :? ConvTranspose2d ->
        Expr.Call(mConvT2d, [ x; w; b; arr m.stride; arr m.padding; arr m.output_padding; arr m.dilation; g ])
    | :? Conv1d when m.padding_mode <> PaddingModes.Zeros ->
        Expr.Call(mConv1d, [ padded (); w; b; one m.stride; nullableOf (Some 0L); one m.dilation; g ])
    | :? Conv1d when m.padding_type.HasValue ->
        Expr.Call(mConv1dPadding, [ x; w; b; one m.stride; Expr.Value m.padding_type.Value; one m.dilation; g ])
    | :? Conv1d -> Expr.Call(mConv1d, [ x; w; b; one m.stride; one m.padding; one m.dilation; g ])
    | :? Conv2d when m.padding_mode <> PaddingModes.Zeros ->
        Expr.Call(mConv2d, [ padded (); w; b; arr m.stride; arr zeros; arr m.dilation; g ])
    | :? Conv2d when m.padding_type.HasValue ->
        Expr.Call(mConv2dPadding, [ x; w; b; arr m.stride; Expr.Value m.padding_type.Value; arr m.dilation; g ])
    | :? Conv2d -> Expr.Call(mConv2d, [ x; w; b; arr m.stride; arr m.padding; arr m.dilation; g ])
    | _ ->
        raise (ModuleError(sprintf "module '%s' of type %s: kgen expands Conv1d, Conv2d, ConvTranspose1d and ConvTranspose2d (not 3-D convolutions yet)"
                               l.Path (m.GetType().ToString())))

let private known =
    "Linear, Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, LayerNorm, Dropout, Embedding, ReLU, GELU, SiLU, Tanh, Sigmoid, Mish, Hardswish, ELU, " +
    "BatchNorm1d/2d, InstanceNorm1d/2d, GroupNorm, MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d, AdaptiveMaxPool1d/2d, " +
    "Upsample, PixelShuffle, PixelUnshuffle, Flatten, RNNCell, GRUCell, LSTMCell, LSTM, GRU, RNN, MultiheadAttention, TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer, TransformerDecoder, Transformer, " +
    "LeakyReLU, Softplus, Softmax, LogSoftmax, ReLU6, SELU, Identity, Sequential, modules implementing Kgen.IQuotedForward"

/// What applying the live module `l` to `x` is. For a user module, Choice2Of2 gives the
/// reflected forward's `this` and its body with the parameter bound to `x` (the serializer
/// binds `this` to the live module).
let apply (l: Live) (x: Expr) : Choice<Expr, Var * Expr> =
    let call (mi: MethodInfo) args = Choice1Of2(Expr.Call(mi, args))
    let inst (mi: MethodInfo) args = Choice1Of2(Expr.Call(x, mi, args))
    let dbl (v: float) = Expr.Value v
    match l.Obj with
    | :? Linear as m -> call mLinear [ x; capture (join l.Path "weight") m.weight; capture (join l.Path "bias") m.bias ]
    | :? Convolution as m -> Choice1Of2(convolution l m x)
    | :? LayerNorm as m ->
        call mLayerNorm [ x; Expr.Value m.normalized_shape; capture (join l.Path "weight") m.weight
                          capture (join l.Path "bias") m.bias; dbl m.eps ]
    | :? Dropout as m ->
        if m.training then call mDropout [ x; dbl m.p; Expr.Value true; Expr.Value false ] else Choice1Of2 x
    | :? Embedding as m ->
        // F.embedding(x, W) is W indexed by the tensor x (advanced indexing): W[x]
        let w = capture (join l.Path "weight") m.weight
        Choice1Of2(Expr.Call(w, mIndex, [ Expr.NewArray(typeof<torch.TensorIndex>, [ Expr.Call(mTensorIndex, [ x ]) ]) ]))
    | :? ReLU -> inst mRelu []
    | :? GELU as m -> inst mGelu [ Expr.Value m.approximate ]
    | :? SiLU -> inst mSilu []
    | :? Tanh -> inst mTanh []
    | :? Sigmoid -> inst mSigmoid []
    | :? Hardswish -> inst mHardswish []
    | :? Mish -> call mMish [ x; Expr.Value false ]
    | :? ELU as m -> inst mElu [ dbl m.alpha ]
    | :? LeakyReLU as m -> inst mLeaky [ Expr.Call(mScalarOfDouble, [ dbl m.negative_slope ]) ]
    | :? Softplus as m -> inst mSoftplus [ dbl m.beta; dbl m.threshold ]
    | :? Softmax as m -> inst mSoftmax [ Expr.Value m.dim; Expr.DefaultValue typeof<Nullable<torch.ScalarType>> ]
    // LogSoftmax.forward: functional.log_softmax(tensor, dim); ReLU6.forward: functional.relu6(tensor,
    // inplace) (in place or not, the value is the same: the module's input is an intermediate)
    | :? LogSoftmax as m -> call mLogSoftmax [ x; Expr.Value m.dim ]
    | :? ReLU6 -> call mRelu6 [ x; Expr.Value false ]
    | :? SELU -> inst mSelu []
    | :? Identity -> Choice1Of2 x
    // issue 12: as each module's forward calls the functional form in TorchSharp 0.107
    | :? BatchNorm as m ->
        // BatchNorm.forward: batch statistics when training (or without running statistics), the
        // running statistics passed unless training without tracking them; training with them
        // counts the batch (num_batches_tracked.add_(1)) and updates them in place (frontend/cnn.c),
        // the caller's buffers written back after the run
        let bnTraining = m.training || (isNull m.running_mean && isNull m.running_var)
        let pr = not m.training || m.track_running_stats
        let tracking = m.training && m.track_running_stats && not (isNull m.num_batches_tracked)
        if tracking && not m.momentum.HasValue then
            raise (ModuleError(sprintf "module '%s' (BatchNorm) in training mode with momentum = null: its cumulative average factor is 1 / num_batches_tracked, a run-time value; give it a momentum or call .eval()" l.Path))
        let factor = if m.momentum.HasValue then m.momentum.Value else 0.0
        let rm = if pr then capture (join l.Path "running_mean") m.running_mean else Expr.Value(null, typeof<Tensor>)
        let rv = if pr then capture (join l.Path "running_var") m.running_var else Expr.Value(null, typeof<Tensor>)
        let bn =
            Expr.Call(mBatchNorm, [ x; rm; rv; capture (join l.Path "weight") m.weight; capture (join l.Path "bias") m.bias
                                    Expr.Value bnTraining; dbl factor; dbl m.eps ])
        if tracking then
            let count = Expr.Call(capture (join l.Path "num_batches_tracked") m.num_batches_tracked, mAddInPlace,
                                  [ Expr.Call(typeof<TorchSharp.Scalar>.GetMethod("op_Implicit", [| typeof<int64> |]), [ Expr.Value 1L ]) ])
            Choice1Of2(Expr.Sequential(count, bn))
        else Choice1Of2 bn
    | :? InstanceNorm as m ->
        // batched input (N, C, ...); InstanceNorm's unbatched (C, ...) form is not expanded
        call mInstanceNorm [ x; capture (join l.Path "running_mean") m.running_mean; capture (join l.Path "running_var") m.running_var
                             capture (join l.Path "weight") m.weight; capture (join l.Path "bias") m.bias
                             Expr.Value(m.training || not m.track_running_stats); dbl (if m.momentum.HasValue then m.momentum.Value else 0.1); dbl m.eps ]
    | :? GroupNorm as m ->
        call mGroupNorm [ x; Expr.Value m.num_groups; capture (join l.Path "weight") m.weight; capture (join l.Path "bias") m.bias; dbl m.eps ]
    | :? MaxPool1d as m ->
        call mMaxPool1d [ x; Expr.Value m.kernel_size; nullable m.stride; nullable m.padding
                          nullable m.dilation; Expr.Value m.ceil_mode ]
    | :? MaxPool2d as m ->
        call mMaxPool2d [ x; Expr.Value(m.kernel_size, typeof<int64[]>); Expr.Value(m.stride, typeof<int64[]>); Expr.Value(m.padding, typeof<int64[]>)
                          Expr.Value(m.dilation, typeof<int64[]>); Expr.Value m.ceil_mode ]
    | :? AvgPool1d as m ->
        call mAvgPool1d [ x; Expr.Value m.kernel_size; nullable m.stride; nullable m.padding
                          Expr.Value m.ceil_mode; Expr.Value m.count_include_pad ]
    | :? AvgPool2d as m ->
        call mAvgPool2d [ x; Expr.Value(m.kernel_size, typeof<int64[]>); Expr.Value(m.stride, typeof<int64[]>); Expr.Value(m.padding, typeof<int64[]>)
                          Expr.Value m.ceil_mode; Expr.Value m.count_include_pad; nullable m.divisor_override ]
    | :? AdaptiveAvgPool1d as m -> call mAdaptiveAvg1d [ x; Expr.Value m.output_size ]
    | :? AdaptiveAvgPool2d as m -> call mAdaptiveAvg2d [ x; Expr.Value(m.output_size, typeof<int64[]>) ]
    | :? AdaptiveMaxPool1d as m -> call mAdaptiveMax1d [ x; Expr.Value m.output_size ]
    | :? AdaptiveMaxPool2d as m -> call mAdaptiveMax2d [ x; Expr.Value(m.output_size, typeof<int64[]>) ]
    | :? Upsample as m ->
        // Upsample.forward: interpolate(input, size, scale_factor, mode, align_corners, recompute ?? false);
        // the size and scale factors live in private fields (the properties are spans)
        let field (n: string) = typeof<Upsample>.GetField(n, BindingFlags.NonPublic ||| BindingFlags.Instance).GetValue m
        call mInterpolate [ x; Expr.Value(field "_size", typeof<int64[]>); Expr.Value(field "_scale_factor", typeof<float[]>)
                            Expr.Value(enum<torch.InterpolationMode> (int m.mode)); nullable m.align_corners
                            Expr.Value(m.recompute_scale_factor.GetValueOrDefault false); Expr.Value false ]
    | :? PixelShuffle as m -> call mPixelShuffle [ x; Expr.Value m.upscale_factor ]
    | :? PixelUnshuffle as m -> call mPixelUnshuffle [ x; Expr.Value m.downscale_factor ]
    | :? Flatten as m -> inst mFlatten [ Expr.Value m.start_dim; Expr.Value m.end_dim ]
    | :? Kgen.IQuotedForward as q ->
        match q.Forward with
        | Lambda(p, body) when p.Type = typeof<Tensor> -> Choice1Of2(Expr.Let(p, x, renameCaptures l body))
        | f ->
            raise (ModuleError(sprintf "module '%s' of type %s: its quoted forward is not a lambda of one tensor: %A"
                                   l.Path (l.Obj.GetType().ToString()) f))
    | :? Sequential as s ->
        // the chain of its children, each an application of a named live module
        let chained =
            s.named_children()
            |> Seq.fold (fun (acc: Expr) struct (name, child) ->
                let recv = Expr.ValueWithName(child, child.GetType(), join l.Path name)
                Expr.Call(Expr.Coerce(recv, typeof<torch.nn.Module<Tensor, Tensor>>), mForward, [ acc ])) x
        Choice1Of2 chained
    | o ->
        // the forward for the argument's own type (a Module<Input, Output> over a class) or a tensor
        let fwd =
            match userMethod o "forward" [| x.Type |] with
            | Some f -> Some f
            | None -> userForward o
        match fwd with
        | Some(Lambda(this, Lambda(p, body))) -> Choice2Of2(this, Expr.Let(p, x, body))
        | _ ->
            raise (ModuleError(sprintf
                "module '%s' of type %s is not supported: kgen expands %s, and user modules whose forward is marked [<ReflectedDefinition>]"
                l.Path (o.GetType().ToString()) known))

/// A module application: `m.forward x`, `m.call x` or `x --> m` on a live module.
let (|ModuleApply|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(Some m, mi, [ x ]) when (mi.Name = "forward" || mi.Name = "call") ->
        live vars m |> Option.filter (fun l -> isModule l.Obj) |> Option.map (fun l -> l, x)
    | Call(None, mi, [ x; m ]) when mi.Name = "op_MinusMinusGreater" ->
        live vars m |> Option.filter (fun l -> isModule l.Obj) |> Option.map (fun l -> l, x)
    | _ -> None

// ---- recurrent cells: RNNCell, GRUCell, LSTMCell ----
// Their forwards call native code (THSNN_*Cell_forward), so they expand into the arithmetic
// ATen's cells compute on the CPU (aten/src/ATen/native/RNN.cpp: SimpleCell, GRUCell, LSTMCell),
// in its order: the hidden product first, `linear(h, W_hh, b_hh) + linear(x, W_ih, b_ih)`, the
// gates chunked in PyTorch's order (r, z, n; i, f, g, o). Their small products fold into one
// kernel per step (passes/fold_products.c).
let private mAddT = methodOf <@ t0 + t0 @>
let private mSubT = methodOf <@ t0 - t0 @>
let private mMulT = methodOf <@ t0 * t0 @>
let private mChunk = methodOf <@ t0.chunk(1L, 1L) @>
let private mGetArray = methodOf <@ (Unchecked.defaultof<Tensor[]>).[0] @>

/// RNNCell keeps its nonlinearity in native code (no property reads it back): one probe forward
/// on fixed values tells tanh from relu (they differ wherever the pre-activation is not 0).
let private rnnCellIsRelu (path: string) (m: RNNCell) =
    use _ = torch.no_grad()
    let w = m.weight_ih
    let inputs = w.shape.[1]
    use x = torch.linspace(-1.0, 1.0, inputs, dtype = w.dtype).reshape(1L, inputs)
    use h = torch.zeros(1L, m.weight_hh.shape.[1], dtype = w.dtype)
    use pre = torch.nn.functional.linear(h, m.weight_hh, m.bias_hh) + torch.nn.functional.linear(x, w, m.bias_ih)
    use out = m.forward(x, h)
    use asTanh = pre.tanh()
    use asRelu = pre.relu()
    if out.allclose(asTanh, 1e-4, 1e-6) then false
    elif out.allclose(asRelu, 1e-4, 1e-6) then true
    else raise (ModuleError(sprintf "module '%s' (RNNCell): its nonlinearity is neither tanh nor relu by a probe forward" path))

/// A cell's parameter properties wrap a fresh handle per read (THSNN_*Cell_weight_ih): one
/// wrapper per cell and name, so every read of it is the same captured object.
let private cellParams = System.Runtime.CompilerServices.ConditionalWeakTable<obj, System.Collections.Generic.Dictionary<string, Tensor>>()
let private cellParam (m: obj) (name: string) (read: unit -> Tensor) =
    let d = cellParams.GetOrCreateValue m
    match d.TryGetValue name with
    | true, t -> t
    | _ ->
        let t = read ()
        d.[name] <- t
        t

/// The expansion of `cell.forward(x, state)` / `cell.call(x, state)` on a live cell.
let private expandCell (l: Live) (x: Expr) (state: Expr) : Expr =
    let needState () =
        raise (ModuleError(sprintf "module '%s' (%s): pass its state explicitly (a null initial state, zeros in PyTorch, is not expanded)"
                               l.Path (l.Obj.GetType().Name)))
    let isNullValue (e: Expr) = match e with | Value(null, _) -> true | _ -> false
    // read through the property once per cell and name (each read wraps a fresh native handle)
    let cap (n: string) =
        capture (join l.Path n) (cellParam l.Obj n (fun () -> l.Obj.GetType().GetProperty(n).GetValue l.Obj :?> Tensor))
    let lin (a: Expr) w b = Expr.Call(mLinear, [ a; w; b ])
    let add a b = Expr.Call(mAddT, [ a; b ])
    let mul a b = Expr.Call(mMulT, [ a; b ])
    let un (mi: MethodInfo) (a: Expr) = Expr.Call(a, mi, [])
    let chunks (name: string) (e: Expr) (n: int64) (k: Var -> Expr) =
        let v = Var(name, typeof<Tensor[]>)
        Expr.Let(v, Expr.Call(e, mChunk, [ Expr.Value n; Expr.Value 1L ]), k v)
    let item (v: Var) (i: int) = Expr.Call(mGetArray, [ Expr.Var v; Expr.Value i ])
    let bind (name: string) (e: Expr) (k: Expr -> Expr) =
        let v = Var(name, typeof<Tensor>)
        Expr.Let(v, e, k (Expr.Var v))
    match l.Obj with
    | :? RNNCell as m ->
        if isNullValue state then needState ()
        let relu = rnnCellIsRelu l.Path m
        let pre = add (lin state (cap "weight_hh") (cap "bias_hh")) (lin x (cap "weight_ih") (cap "bias_ih"))
        un (if relu then mRelu else mTanh) pre
    | :? GRUCell as m ->
        if isNullValue state then needState ()
        bind "hx" state (fun h ->
            chunks "gi" (lin x (cap "weight_ih") (cap "bias_ih")) 3L (fun gi ->
                chunks "gh" (lin h (cap "weight_hh") (cap "bias_hh")) 3L (fun gh ->
                    bind "resetgate" (un mSigmoid (add (item gh 0) (item gi 0))) (fun r ->
                        bind "inputgate" (un mSigmoid (add (item gh 1) (item gi 1))) (fun z ->
                            bind "newgate" (un mTanh (add (item gi 2) (mul (item gh 2) r))) (fun n ->
                                add (mul (Expr.Call(mSubT, [ h; n ])) z) n))))))
    | :? LSTMCell as m ->
        let tup =
            match state with
            | NewObject(ctor, [ t ]) when ctor.DeclaringType.IsGenericType && ctor.DeclaringType.GetGenericTypeDefinition() = typedefof<Nullable<int>> -> t
            | _ -> needState ()
        let st = Var("hc", tup.Type)
        let h, c = Expr.TupleGet(Expr.Var st, 0), Expr.TupleGet(Expr.Var st, 1)
        Expr.Let(st, tup,
            chunks "gates" (add (lin h (cap "weight_hh") (cap "bias_hh")) (lin x (cap "weight_ih") (cap "bias_ih"))) 4L (fun g ->
                bind "cy" (add (mul (un mSigmoid (item g 1)) c) (mul (un mSigmoid (item g 0)) (un mTanh (item g 2)))) (fun cy ->
                    Expr.NewStructTuple(typeof<struct (Tensor * Tensor)>.Assembly, [ mul (un mSigmoid (item g 3)) (un mTanh cy); cy ]))))
    | o -> raise (ModuleError(sprintf "module '%s' of type %s is not a recurrent cell" l.Path (o.GetType().ToString())))

/// `cell.forward(x, state)` / `cell.call(x, state)` on a live RNNCell, GRUCell or LSTMCell: its
/// expansion (the state a tensor, or for LSTMCell `Nullable(struct (h, c))`).
let (|CellApply|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(Some m, mi, [ x; state ]) when mi.Name = "forward" || mi.Name = "call" ->
        match live vars m with
        | Some l when (l.Obj :? RNNCell || l.Obj :? GRUCell || l.Obj :? LSTMCell) -> Some(expandCell l x state)
        | _ -> None
    | _ -> None

/// Any other call of a method of a live user module: `m.forward(x, y, mask)` (a forward of
/// several arguments, Module<T1, T2, ..., TResult>), `m.call(x, y)`, `this.Norm(x)` (a helper
/// member), or a member of a module that is not a Module<Tensor, Tensor>. The method the live
/// object runs (its most derived override; `call` runs `forward`) must have a reflected body;
/// gives the live module, the body's `this` and the body with its parameters bound to the
/// arguments. A method without a reflected body is an error naming it.
let (|ModuleMethod|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(Some m, mi, args) ->
        match live vars m with
        | Some l when isModule l.Obj ->
            let name = if mi.Name = "call" then "forward" else mi.Name
            let types = mi.GetParameters() |> Array.map (fun p -> p.ParameterType)
            match userMethod l.Obj name types with
            | Some(Lambda(this, lam)) ->
                match bindParams lam args with
                | Some body -> Some(l, this, body)
                | None -> raise (ModuleError(sprintf "'%s.%s': its reflected body has an unexpected form" l.Path name))
            | _ when name = "forward" ->
                raise (ModuleError(sprintf
                    "module '%s' of type %s: its forward of %d argument(s) is not marked [<ReflectedDefinition>] (kgen expands %s, and user modules whose forward is)"
                    l.Path (l.Obj.GetType().ToString()) args.Length known))
            | _ -> None
        | _ -> None
    | _ -> None

/// `m.get_buffer("name")` / `m.get_parameter("name")` on a live module with a constant name: the
/// registered tensor, a captured input named by its path (`rotary_inv_freq`).
let (|ModuleTensorByName|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(Some m, mi, [ Value(:? string as name, _) ]) when mi.Name = "get_buffer" || mi.Name = "get_parameter" ->
        match live vars m with
        | Some l when isModule l.Obj ->
            let t =
                try mi.Invoke(l.Obj, [| box name |])
                with ex -> raise (ModuleError(sprintf "%s(\"%s\") of '%s' failed: %s" mi.Name name l.Path ex.Message))
            match t with
            | :? Tensor as t -> Some(capture (join l.Path (name.Replace('.', '_'))) t)
            | _ -> raise (ModuleError(sprintf "'%s' has no %s named \"%s\"" l.Path (mi.Name.Substring 4) name))
        | _ -> None
    | _ -> None

/// A value read through a live module that is not a module itself: a tensor (parameter or
/// buffer) becomes a captured input, a number or an array of numbers a constant.
let (|LiveValue|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | FieldGet(Some _, _) | PropertyGet(Some _, _, []) ->
        match live vars e with
        | Some l when not (isModule l.Obj) ->
            match l.Obj with
            | :? Tensor as t -> Some(capture l.Path t)
            | null -> Some(Expr.Value(null, e.Type))
            | o when o.GetType().IsPrimitive || o.GetType().IsEnum || (o.GetType().IsArray && o.GetType().GetElementType().IsPrimitive) ->
                Some(Expr.Value(o, e.Type))
            | o -> raise (ModuleError(sprintf "'%s' (%s) read from a module is neither a tensor nor a number" l.Path (o.GetType().ToString())))
        | _ -> None
    | _ -> None

/// `isNull v` of a value read through a live module (`isNull this.qkv_proj`, `isNull bias`): a
/// constant, as the value itself is read when the quotation is serialized.
let (|LiveNullTest|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(None, mi, [ x ]) when mi.IsGenericMethod && mi.GetGenericMethodDefinition() = mIsNull ->
        match x with
        | FieldGet(Some _, _) | PropertyGet(Some _, _, []) -> live vars x |> Option.map (fun l -> Expr.Value(isNull l.Obj))
        | _ -> None
    | _ -> None

/// `for item in list do body` over a live module list (ModuleList, Sequential): F# quotes it
/// as Let(e, list.GetEnumerator(), TryFinally(WhileLoop(e.MoveNext(), Let(item, e.Current,
/// body)), dispose)). Gives the item variable, the body and the live items with their paths,
/// so the serializer unrolls the loop, one copy of the body per module.
let (|ModuleForEach|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Let(en, Call(Some coll, gm, []), TryFinally(WhileLoop(Call(Some(Var en1), mm, []),
                                                              Let(item, PropertyGet(Some(Var en2), cur, []), body)), _))
        when gm.Name = "GetEnumerator" && mm.Name = "MoveNext" && cur.Name = "Current" && en1 = en && en2 = en ->
        match live vars coll with
        | Some l when isModule l.Obj && (l.Obj :? Collections.IEnumerable) ->
            let items =
                (l.Obj :?> Collections.IEnumerable) |> Seq.cast<obj>
                |> Seq.mapi (fun i o -> { Obj = o; Path = join l.Path (string i) }) |> List.ofSeq
            Some(item, body, items)
        | _ -> None
    | _ -> None

/// `Seq.map (fun item -> body) list` over a live module list (ModuleList, Sequential): how F#
/// quotes a comprehension over one, `[| for conv in convs -> body |]` =
/// ToArray(CreateSequence(Delay(fun () -> Map(fun conv -> body, list)))) (TextCNN's convolutions
/// of several widths). Gives the item variable, the body and the live items with their paths,
/// so the serializer writes the array of one copy of the body per module.
let (|ModuleMap|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(None, mi, [ Lambda(item, body); coll ])
        when mi.Name = "Map" && mi.DeclaringType.FullName = "Microsoft.FSharp.Collections.SeqModule" ->
        match live vars coll with
        | Some l when isModule l.Obj && (l.Obj :? Collections.IEnumerable) ->
            let items =
                (l.Obj :?> Collections.IEnumerable) |> Seq.cast<obj>
                |> Seq.mapi (fun i o -> { Obj = o; Path = join l.Path (string i) }) |> List.ofSeq
            Some(item, body, items)
        | _ -> None
    | _ -> None

/// `let v = <a live module> in body` (F# binds a method's receiver before making a closure
/// of it: `x |> m.forward` is `let objectArg = m in fun arg -> objectArg.forward arg`).
let (|ModuleLet|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Let(v, value, body) ->
        live vars value |> Option.filter (fun l -> isModule l.Obj) |> Option.map (fun l -> v, l, body)
    | _ -> None

/// An application spine `(fun v1 .. vn -> body) a1 .. an` (how F# quotes a custom operator
/// such as `x --> m`: the operator's lambda applied to its operands) where some argument is
/// a live module: each module argument's variable is bound to it, the others become Lets.
/// Returns the bindings and the Let-wrapped body.
let (|ModuleRedex|_|) (vars: Var -> Live option) (e: Expr) =
    let rec spine (e: Expr) acc =
        match e with
        | Application(f, a) -> spine f (a :: acc)
        | head -> head, acc
    match e with
    | Application _ ->
        let head, args = spine e []
        let rec lambdas (h: Expr) n acc =
            if n = 0 then Some(List.rev acc, h)
            else
                match h with
                | Lambda(v, b) -> lambdas b (n - 1) (v :: acc)
                | _ -> None
        let lives = args |> List.map (fun a -> live vars a |> Option.filter (fun l -> isModule l.Obj))
        if lives |> List.exists Option.isSome then
            match lambdas head args.Length [] with
            | Some(vs, body) ->
                let bound = List.zip vs lives |> List.choose (fun (v, l) -> l |> Option.map (fun l -> v, l))
                let wrapped =
                    List.zip3 vs args lives
                    |> List.rev
                    |> List.fold (fun (b: Expr) (v, a, l) -> if Option.isSome l then b else Expr.Let(v, a, b)) body
                Some(bound, wrapped)
            | None -> None
        else None
    | _ -> None

// ---- MultiheadAttention (issue 23) ----
// TorchSharp 0.107's MultiheadAttention is libtorch's C++ module (THSNN_MultiheadAttention_forward:
// torch::nn::functional::detail::multi_head_attention_forward), so it expands into the
// arithmetic that function computes, in its order and with its conventions (sequence-first
// [L, N, E]; a float attn_mask added to the scores, and a bool one too, as 0 / 1 — what libtorch
// 2.10's C++ function really does, found by the three-way check; key_padding_mask [N, S] True
// where a key is padding: filled with -inf): q, k, v projected by slices of in_proj_weight (or q/k/v_proj_weight
// with kdim / vdim), q scaled by 1/sqrt(head_dim), heads split as [N·H, L, hd], scores masked,
// softmax, dropout in training, @ v, heads merged, out_proj; with need_weights the probabilities
// averaged over the heads. Written out like that, the attention is the form passes/attention.c
// recognizes: one fused kernel when the weights are not returned. num_heads lives in native code:
// one probe forward on fixed values tells it (the averaged weights differ per head count).
/// The named parameters of a native module, read once per module (each read wraps a fresh handle).
let nativeParam (m: torch.nn.Module) (name: string) : Tensor =
    cellParam m name (fun () ->
        match m.named_parameters() |> Seq.tryFind (fun struct (n, _) -> n = name) with
        | Some(struct (_, p)) -> p :> Tensor
        | None -> null)

/// libtorch's C++ multi_head_attention_forward (torch/nn/functional/activation.h, the path
/// TorchSharp's native module runs) for in_proj_weight, without bias_k / bias_v or zero
/// attention, in eval mode: the expansion's body (its parameters bound by expandMha), and, run
/// eagerly, the probe's reference.
let mhaForward =
    <@ fun (query: Tensor) (key: Tensor) (value: Tensor) (kpm: Tensor) (needW: bool) (mask: Tensor)
           (w: Tensor) (b: Tensor) (ow: Tensor) (ob: Tensor) (heads: int64) (scale: float) ->
        let e = w.shape.[1]
        let hd = e / heads
        let lin (x: Tensor) (i: int64) =
            torch.nn.functional.linear(x, w.narrow(0L, i * e, e), (if isNull b then null else b.narrow(0L, i * e, e)))
        let split (x: Tensor) = x.contiguous().view([| x.shape.[0]; -1L; hd |]).transpose(0L, 1L)
        let q = lin query 0L * scale
        let k = lin key 1L
        let v = lin value 2L
        let s = (split q).bmm((split k).transpose(1L, 2L))
        let s =
            if isNull mask then s
            // libtorch 2.10's C++ functional (what TorchSharp runs) adds a bool attn_mask as 0 / 1
            // (measured against the native module: a True does not mask), so the expansion does too
            elif mask.dtype = torch.ScalarType.Bool then s + mask.to_type(s.dtype)
            else s + mask
        let s =
            if isNull kpm then s
            else s.masked_fill(kpm.unsqueeze(1L).unsqueeze(2L).expand([| -1L; heads; -1L; -1L |]).reshape([| -1L; 1L; kpm.shape.[1] |]), Double.NegativeInfinity)
        let p = s.softmax(-1L)
        let o = p.bmm(split v).transpose(0L, 1L).contiguous().view([| query.shape.[0]; -1L; e |])
        let o = torch.nn.functional.linear(o, ow, ob)
        let weights =
            if needW then p.view([| -1L; heads; p.shape.[1]; p.shape.[2] |]).sum(1L, false, Nullable()) / float heads
            else null
        o, weights @>

/// mhaForward run eagerly by TorchSharp (Kgen.Eval, the check's interpreter).
let private mhaEager (args: obj list) : Tensor * Tensor = Eval.applyAll (Eval.run mhaForward) args :?> Tensor * Tensor

/// MultiheadAttention's num_heads, by a probe forward (it lives in native code): the averaged
/// weights of each head count that divides embed_dim against the native module's.
let private mhaHeads (path: string) (m: MultiheadAttention) (w: Tensor) (b: Tensor) (ow: Tensor) (ob: Tensor) =
    use _ = torch.no_grad()
    let e = w.shape.[1]
    use x = torch.linspace(-1.0, 1.0, 3L * 2L * e, dtype = w.dtype).reshape(3L, 2L, e)
    let native = m.forward(x, x, x, null, true, null)
    let found =
        [ 1L .. e ] |> List.filter (fun h -> e % h = 0L)
        |> List.tryFind (fun h ->
            let _, r = mhaEager [ box x; box x; box x; null; box true; null; box w; box b; box ow; box ob; box h; box (1.0 / Math.Sqrt(float (e / h))) ]
            let _, nw = native in nw.allclose(r, 1e-4, 1e-6))
    match found with
    | Some h -> h
    | None -> raise (ModuleError(sprintf "module '%s' (MultiheadAttention): its number of heads is not told by a probe forward" path))

/// The expansion of `mha.forward(query, key, value, key_padding_mask, need_weights, attn_mask)`:
/// mhaForward's body with its parameters bound (the module's tensors captured by name).
let private expandMha (l: Live) (m: MultiheadAttention) (args: Expr list) : Expr =
    let fail msg = raise (ModuleError(sprintf "module '%s' (MultiheadAttention): %s" l.Path msg))
    let p name = nativeParam m name
    let inW, inB = p "in_proj_weight", p "in_proj_bias"
    if isNull inW then fail "separate q / k / v projection weights (kdim / vdim other than embed_dim) are not expanded yet"
    if not (isNull (p "bias_k")) then fail "add_bias_kv is not expanded yet"
    if m.training then fail "training mode: its dropout probability lives in native code (call .eval(), or write the attention with functional.scaled_dot_product_attention)"
    let outW, outB = p "out_proj.weight", p "out_proj.bias"
    let heads = mhaHeads l.Path m inW inB outW outB
    let e = inW.shape.[1]
    let cap n t = capture (join l.Path n) t
    let values =
        args @ [ cap "in_proj_weight" inW; cap "in_proj_bias" inB; cap "out_proj_weight" outW; cap "out_proj_bias" outB
                 Expr.Value heads; Expr.Value(1.0 / Math.Sqrt(float (e / heads))) ]
    let rec bindAll (lam: Expr) (vs: Expr list) =
        match lam, vs with
        | Lambda(v, body), x :: rest -> Expr.Let(v, x, bindAll body rest)
        | body, [] -> body
        | _ -> fail "internal: the expansion's parameters"
    if args.Length <> 6 then fail "forward takes (query, key, value, key_padding_mask, need_weights, attn_mask)"
    bindAll mhaForward values

/// `mha.forward(query, key, value, key_padding_mask, need_weights, attn_mask)` / `mha.call(...)` on a
/// live MultiheadAttention: its expansion (a System.Tuple of the output and the averaged weights,
/// null without need_weights, as TorchSharp returns them).
let (|AttentionApply|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(Some m, mi, args) when (mi.Name = "forward" || mi.Name = "call") && args.Length = 6 ->
        match live vars m with
        | Some l when (l.Obj :? MultiheadAttention) -> Some(expandMha l (l.Obj :?> MultiheadAttention) args)
        | _ -> None
    | _ -> None

// ---- TransformerEncoderLayer and TransformerEncoder (issue 23) ----
// libtorch's C++ modules as well (TransformerEncoderLayerImpl::forward): post-norm,
//   x = norm1(src + self_attn(src, src, src, src_key_padding_mask, src_mask)),
//   out = norm2(x + linear2(activation(linear1(x)))),
// LayerNorm eps 1e-5, dropout only in training (refused: its p lives in native code). The number
// of heads and the activation (relu or gelu) live in native code too: one probe forward tells
// them. TransformerEncoder is its layers in order (parameters `layers.<i>.…`), then its final norm
// when it has one. The attention inside is mhaForward, so each layer's attention is one fused
// kernel (passes/attention.c).
let encoderLayerForward =
    <@ fun (src: Tensor) (mask: Tensor) (kpm: Tensor) (w: Tensor) (b: Tensor) (ow: Tensor) (ob: Tensor) (heads: int64) (scale: float)
           (w1: Tensor) (b1: Tensor) (w2: Tensor) (b2: Tensor) (n1w: Tensor) (n1b: Tensor) (n2w: Tensor) (n2b: Tensor) (gelu: bool) ->
        let a, _ = (%mhaForward) src src src kpm false mask w b ow ob heads scale
        let e = src.shape.[2]
        let x = torch.nn.functional.layer_norm(src + a, [| e |], n1w, n1b, 1e-5)
        let h = torch.nn.functional.linear(x, w1, b1)
        let h = if gelu then h.gelu(GELU.Approximate.none) else h.relu()
        torch.nn.functional.layer_norm(x + torch.nn.functional.linear(h, w2, b2), [| e |], n2w, n2b, 1e-5) @>

let bindTemplate (what: string) (lam: Expr) (vs: Expr list) =
    let rec go (lam: Expr) (vs: Expr list) =
        match lam, vs with
        | Lambda(v, body), x :: rest -> Expr.Let(v, x, go body rest)
        | body, [] -> body
        | _ -> raise (ModuleError(sprintf "%s: internal: the expansion's parameters" what))
    go lam vs

/// One encoder layer's tensors (under `prefix`, "" or "layers.3."), as captures and as live tensors.
let private layerTensors (l: Live) (m: torch.nn.Module) (prefix: string) =
    let names =
        [ "self_attn.in_proj_weight"; "self_attn.in_proj_bias"; "self_attn.out_proj.weight"; "self_attn.out_proj.bias"
          "linear1.weight"; "linear1.bias"; "linear2.weight"; "linear2.bias"; "norm1.weight"; "norm1.bias"; "norm2.weight"; "norm2.bias" ]
    let ts = names |> List.map (fun n -> nativeParam m (prefix + n))
    if ts |> List.exists isNull then raise (ModuleError(sprintf "module '%s': a transformer layer without the parameters kgen expands (%s)" l.Path (String.concat ", " names)))
    ts, List.map2 (fun n t -> capture (join l.Path ((prefix + n).Replace('.', '_'))) t) names ts

/// The layers' number of heads and activation, by one probe forward of the module (its layers
/// share them): every (heads, gelu) against the native output.
let private encoderProbe (l: Live) (m: torch.nn.Module) (run: Tensor -> Tensor) (layers: Tensor list list) (norm: (Tensor * Tensor) option) =
    use _ = torch.no_grad()
    let e = (List.head layers).[0].shape.[1]
    use x = torch.linspace(-1.0, 1.0, 3L * 2L * e, dtype = (List.head layers).[0].dtype).reshape(3L, 2L, e)
    let native = run x
    let eager h gelu =
        let out =
            layers |> List.fold (fun (src: Tensor) ts ->
                let args = [ box src; null; null ] @ (ts |> List.take 4 |> List.map box) @ [ box h; box (1.0 / Math.Sqrt(float (e / h))) ] @ (ts |> List.skip 4 |> List.map box) @ [ box gelu ]
                Eval.applyAll (Eval.run encoderLayerForward) args :?> Tensor) x
        match norm with
        | Some(w, b) -> torch.nn.functional.layer_norm(out, [| e |], w, b, 1e-5)
        | None -> out
    let cands = [ for h in 1L .. e do if e % h = 0L then for g in [ false; true ] -> h, g ]
    match cands |> List.tryFind (fun (h, g) -> native.allclose(eager h g, 1e-4, 1e-5)) with
    | Some hg -> hg
    | None -> raise (ModuleError(sprintf "module '%s' (%s): its number of heads and activation are not told by a probe forward" l.Path (m.GetType().Name)))

let private expandEncoder (l: Live) (m: torch.nn.Module) (args: Expr list) : Expr =
    if m.training then
        raise (ModuleError(sprintf "module '%s' (%s): training mode: its dropout probability lives in native code (call .eval())" l.Path (m.GetType().Name)))
    let nul = Expr.Value(null, typeof<Tensor>)
    let src, mask, kpm =
        match args with
        | [ s ] -> s, nul, nul
        | [ s; mk ] -> s, mk, nul
        | [ s; mk; k ] -> s, mk, k
        | _ -> raise (ModuleError(sprintf "module '%s': forward takes (src[, src_mask[, src_key_padding_mask]])" l.Path))
    let prefixes =
        match m with
        | :? TransformerEncoderLayer -> [ "" ]
        | _ ->
            let n = m.named_parameters() |> Seq.choose (fun struct (n, _) -> if n.StartsWith "layers." then Some(n.Split('.').[1]) else None) |> Seq.distinct |> Seq.length
            [ for i in 0 .. n - 1 -> sprintf "layers.%d." i ]
    let layers = prefixes |> List.map (layerTensors l m)
    let normW, normB = nativeParam m "norm.weight", nativeParam m "norm.bias"
    let norm = if isNull normW then None else Some(normW, normB)
    let run (x: Tensor) =
        match m with
        | :? TransformerEncoderLayer as el -> el.forward(x)
        | :? TransformerEncoder as en -> en.forward(x, null, null)
        | _ -> raise (ModuleError "not an encoder")
    let heads, gelu = encoderProbe l m run (List.map fst layers) norm
    let e = (fst (List.head layers)).[0].shape.[1]
    let scale = Expr.Value(1.0 / Math.Sqrt(float (e / heads)))
    let body =
        layers |> List.fold (fun (x: Expr) (_, caps) ->
            let v = Var("layer_out", typeof<Tensor>)
            let layer = bindTemplate l.Path encoderLayerForward ([ x; mask; kpm ] @ List.take 4 caps @ [ Expr.Value heads; scale ] @ List.skip 4 caps @ [ Expr.Value gelu ])
            Expr.Let(v, layer, Expr.Var v)) src
    match norm with
    | Some(w, b) -> Expr.Call(mLayerNorm, [ body; Expr.Value [| e |]; capture (join l.Path "norm_weight") w; capture (join l.Path "norm_bias") b; Expr.Value 1e-5 ])
    | None -> body

/// `layer.forward(src)` / `layer.call(src, src_mask[, src_key_padding_mask])` on a live
/// TransformerEncoderLayer, `encoder.forward(src, src_mask, src_key_padding_mask)` / `call` on a
/// live TransformerEncoder: their expansion.
let (|TransformerApply|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(Some m, mi, args) when (mi.Name = "forward" || mi.Name = "call") && args.Length >= 1 && args.Length <= 3 ->
        match live vars m with
        | Some l when (l.Obj :? TransformerEncoderLayer || l.Obj :? TransformerEncoder) -> Some(expandEncoder l (l.Obj :?> torch.nn.Module) args)
        | _ -> None
    | _ -> None

// ---- TransformerDecoderLayer, TransformerDecoder and Transformer (issue 23) ----
// libtorch's C++ TransformerDecoderLayerImpl::forward (post-norm): self-attention over tgt
// (tgt_mask, tgt_key_padding_mask), norm1; attention over the memory (memory_mask,
// memory_key_padding_mask), norm2; the feed-forward, norm3. TransformerDecoder is its layers and
// its final norm; Transformer (TransformerImpl::forward) is the encoder (with its final norm) over
// src, then the decoder over tgt and the encoder's output. Heads and activation: one probe forward.
let decoderLayerForward =
    <@ fun (tgt: Tensor) (memory: Tensor) (tmask: Tensor) (mmask: Tensor) (tkpm: Tensor) (mkpm: Tensor)
           (sw: Tensor) (sb: Tensor) (sow: Tensor) (sob: Tensor) (cw: Tensor) (cb: Tensor) (cow: Tensor) (cob: Tensor)
           (heads: int64) (scale: float) (w1: Tensor) (b1: Tensor) (w2: Tensor) (b2: Tensor)
           (n1w: Tensor) (n1b: Tensor) (n2w: Tensor) (n2b: Tensor) (n3w: Tensor) (n3b: Tensor) (gelu: bool) ->
        let e = tgt.shape.[2]
        let a, _ = (%mhaForward) tgt tgt tgt tkpm false tmask sw sb sow sob heads scale
        let x = torch.nn.functional.layer_norm(tgt + a, [| e |], n1w, n1b, 1e-5)
        let c, _ = (%mhaForward) x memory memory mkpm false mmask cw cb cow cob heads scale
        let x = torch.nn.functional.layer_norm(x + c, [| e |], n2w, n2b, 1e-5)
        let h = torch.nn.functional.linear(x, w1, b1)
        let h = if gelu then h.gelu(GELU.Approximate.none) else h.relu()
        torch.nn.functional.layer_norm(x + torch.nn.functional.linear(h, w2, b2), [| e |], n3w, n3b, 1e-5) @>

let private decoderNames =
    [ "self_attn.in_proj_weight"; "self_attn.in_proj_bias"; "self_attn.out_proj.weight"; "self_attn.out_proj.bias"
      "multihead_attn.in_proj_weight"; "multihead_attn.in_proj_bias"; "multihead_attn.out_proj.weight"; "multihead_attn.out_proj.bias"
      "linear1.weight"; "linear1.bias"; "linear2.weight"; "linear2.bias"
      "norm1.weight"; "norm1.bias"; "norm2.weight"; "norm2.bias"; "norm3.weight"; "norm3.bias" ]

/// The tensors of the layers under `prefix` ("encoder." / "decoder." / ""), as captures and as
/// live tensors: one list per layer (`layers.<i>.`, or the module itself when it is a layer).
let private stackTensors (l: Live) (m: torch.nn.Module) (prefix: string) (names: string list) (single: bool) =
    let layerPrefixes =
        if single then [ prefix ]
        else
            let n =
                m.named_parameters() |> Seq.choose (fun struct (n, _) ->
                    if n.StartsWith(prefix + "layers.") then Some(n.Substring(prefix.Length).Split('.').[1]) else None)
                |> Seq.distinct |> Seq.length
            [ for i in 0 .. n - 1 -> sprintf "%slayers.%d." prefix i ]
    layerPrefixes |> List.map (fun pre ->
        let ts = names |> List.map (fun n -> nativeParam m (pre + n))
        if ts |> List.exists isNull then
            raise (ModuleError(sprintf "module '%s': a transformer layer without the parameters kgen expands (%s)" l.Path (String.concat ", " names)))
        ts, List.map2 (fun n t -> capture (join l.Path ((pre + n).Replace('.', '_'))) t) names ts)

let private normOf (l: Live) (m: torch.nn.Module) (prefix: string) =
    let w, b = nativeParam m (prefix + "norm.weight"), nativeParam m (prefix + "norm.bias")
    if isNull w then None else Some((w, b), (capture (join l.Path (prefix.Replace('.', '_') + "norm_weight")) w, capture (join l.Path (prefix.Replace('.', '_') + "norm_bias")) b))

/// The decoder stack (layers then norm) as an expression, and run eagerly (the probe's side).
let private decoderExpr (layers: (Tensor list * Expr list) list) norm (tgt: Expr) (memory: Expr) (masks: Expr list) (heads: int64) (scale: float) (gelu: bool) (e: int64) what =
    let body =
        layers |> List.fold (fun (x: Expr) (_, caps) ->
            let v = Var("layer_out", typeof<Tensor>)
            let args = [ x; memory ] @ masks @ List.take 8 caps @ [ Expr.Value heads; Expr.Value scale ] @ List.skip 8 caps @ [ Expr.Value gelu ]
            Expr.Let(v, bindTemplate what decoderLayerForward args, Expr.Var v)) tgt
    match norm with
    | Some(_, (w, b)) -> Expr.Call(mLayerNorm, [ body; Expr.Value [| e |]; w; b; Expr.Value 1e-5 ])
    | None -> body

let private runStack (tmpl: Expr) (layers: Tensor list list) (norm: (Tensor * Tensor) option) (first: obj list) (split: int) (heads: int64) (scale: float) (gelu: bool) (x: Tensor) (e: int64) =
    let out =
        layers |> List.fold (fun (src: Tensor) ts ->
            let args = [ box src ] @ first @ (ts |> List.take split |> List.map box) @ [ box heads; box scale ] @ (ts |> List.skip split |> List.map box) @ [ box gelu ]
            Eval.applyAll (Eval.run tmpl) args :?> Tensor) x
    match norm with
    | Some(w, b) -> torch.nn.functional.layer_norm(out, [| e |], w, b, 1e-5)
    | None -> out

let private expandDecoderOrTransformer (l: Live) (m: torch.nn.Module) (args: Expr list) : Expr =
    if m.training then
        raise (ModuleError(sprintf "module '%s' (%s): training mode: its dropout probability lives in native code (call .eval())" l.Path (m.GetType().Name)))
    let nul = Expr.Value(null, typeof<Tensor>)
    let pad (xs: Expr list) n = xs @ List.replicate (n - xs.Length) nul
    let isTransformer = m :? Transformer
    let dec = stackTensors l m (if isTransformer then "decoder." else "") decoderNames (m :? TransformerDecoderLayer)
    let dnorm = if isTransformer then normOf l m "decoder." elif m :? TransformerDecoder then normOf l m "" else None
    let encNames = [ "self_attn.in_proj_weight"; "self_attn.in_proj_bias"; "self_attn.out_proj.weight"; "self_attn.out_proj.bias"
                     "linear1.weight"; "linear1.bias"; "linear2.weight"; "linear2.bias"; "norm1.weight"; "norm1.bias"; "norm2.weight"; "norm2.bias" ]
    let enc = if isTransformer then stackTensors l m "encoder." encNames false else []
    let enorm = if isTransformer then normOf l m "encoder." else None
    let e = (fst (List.head dec)).[0].shape.[1]
    // the probe: every (heads, gelu) against the native forward on fixed values
    let heads, gelu =
        use _ = torch.no_grad()
        let dt = (fst (List.head dec)).[0].dtype
        use s = torch.linspace(-1.0, 1.0, 3L * 2L * e, dtype = dt).reshape(3L, 2L, e)
        use t = torch.linspace(1.0, -0.5, 4L * 2L * e, dtype = dt).reshape(4L, 2L, e)
        let native =
            match m with
            | :? Transformer as tr -> tr.forward(s, t)
            | :? TransformerDecoder as d -> d.forward(t, s, null, null, null, null)
            | :? TransformerDecoderLayer as d -> d.forward(t, s, null, null, null, null)
            | _ -> raise (ModuleError "not a decoder")
        let eager h g =
            let scale = 1.0 / Math.Sqrt(float (e / h))
            let mem = if isTransformer then runStack encoderLayerForward (List.map fst enc) (Option.map fst enorm) [ null; null ] 4 h scale g s e else s
            runStack decoderLayerForward (List.map fst dec) (Option.map fst dnorm) [ box mem; null; null; null; null ] 8 h scale g t e
        let cands = [ for h in 1L .. e do if e % h = 0L then for g in [ false; true ] -> h, g ]
        match cands |> List.tryFind (fun (h, g) -> native.allclose(eager h g, 1e-4, 1e-5)) with
        | Some hg -> hg
        | None -> raise (ModuleError(sprintf "module '%s' (%s): its number of heads and activation are not told by a probe forward" l.Path (m.GetType().Name)))
    let scale = 1.0 / Math.Sqrt(float (e / heads))
    if isTransformer then
        // forward(src, tgt) / call(src, tgt, src_mask, tgt_mask, memory_mask, src_kpm, tgt_kpm, memory_kpm)
        let a = pad args 8
        let src, tgt, srcMask, tgtMask, memMask, srcKpm, tgtKpm, memKpm = a.[0], a.[1], a.[2], a.[3], a.[4], a.[5], a.[6], a.[7]
        let memBody =
            enc |> List.fold (fun (x: Expr) (_, caps) ->
                let v = Var("layer_out", typeof<Tensor>)
                let layer = bindTemplate l.Path encoderLayerForward ([ x; srcMask; srcKpm ] @ List.take 4 caps @ [ Expr.Value heads; Expr.Value scale ] @ List.skip 4 caps @ [ Expr.Value gelu ])
                Expr.Let(v, layer, Expr.Var v)) src
        let memBody =
            match enorm with
            | Some(_, (w, b)) -> Expr.Call(mLayerNorm, [ memBody; Expr.Value [| e |]; w; b; Expr.Value 1e-5 ])
            | None -> memBody
        let mv = Var("memory", typeof<Tensor>)
        Expr.Let(mv, memBody, decoderExpr dec dnorm tgt (Expr.Var mv) [ tgtMask; memMask; tgtKpm; memKpm ] heads scale gelu e l.Path)
    else
        // forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask) / call(tgt, memory)
        let a = pad args 6
        decoderExpr dec dnorm a.[0] a.[1] [ a.[2]; a.[3]; a.[4]; a.[5] ] heads scale gelu e l.Path

/// `forward` / `call` on a live TransformerDecoderLayer, TransformerDecoder or Transformer: its expansion.
let (|DecoderApply|_|) (vars: Var -> Live option) (e: Expr) =
    match e with
    | Call(Some m, mi, args) when (mi.Name = "forward" || mi.Name = "call") && args.Length >= 2 ->
        match live vars m with
        | Some l when (l.Obj :? TransformerDecoderLayer || l.Obj :? TransformerDecoder || l.Obj :? Transformer) ->
            Some(expandDecoderOrTransformer l (l.Obj :?> torch.nn.Module) args)
        | _ -> None
    | _ -> None
