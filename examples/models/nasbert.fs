// nasbert: the multi-head attention of ML.NET's NAS-BERT text models (fairseq style: sequence
// first, in-place scaling and transposes, a key padding mask filled with -inf, head-averaged
// weights) and the self-attention layer around it, transcribed from C# into F#.
//
// Source: https://github.com/dotnet/machinelearning, commit cd2fbd617c13bcb98ec8b6554bfa20ac603e4572
//   src/Microsoft.ML.TorchSharp/NasBert/Modules/MultiHeadAttention.cs,
//   src/Microsoft.ML.TorchSharp/NasBert/Modules/Layers/SelfAttentionLayer.cs
// Changes F# needs: [<ReflectedDefinition>] on the type's members (F# keeps no body for kgen
// without it); the `out outAttentionWeights` parameter is the second item of forward's result
// (F#'s own reading of out parameters); `x?.f()` is `if isNull x then null else x.f()`;
// `new List<Tensor> { a, b }` is `ResizeArray [ a; b ]`; ModelUtils.InitXavierUniform /
// InitConstant are torch.nn.init.xavier_uniform_ / constant_; `div_(_numHeads)` is
// div_(_numHeads.ToScalar()), `mul_(_scaling)` mul_(_scaling.ToScalar()) (F# cannot choose between
// the Scalar and the Tensor overloads from a number). Left out: the incremental
// (KV cache) state and `staticKv` (the encoder never passes them; forward's savedState is null),
// and SelfAttentionLayer's argument dictionary: its forward takes the two masks it parses from it
// (Layer's forward(x, Dictionary<string, object>)).
// Sizes: embedding 32, 4 heads, self-attention; sequence 8, batch 2 (inputs are [seq, batch, 32]).
module Models.NasBert

open System
open System.Collections.Generic
open TorchSharp
open TorchSharp.Modules

[<ReflectedDefinition>]
type MultiHeadAttention(embeddingDim: int, numHeads: int, ?kDim: int, ?vDim: int, ?dropout: float, ?bias: bool,
                        ?addBiasKv: bool, ?addZeroAttention: bool, ?selfAttention: bool, ?encoderDecoderAttention: bool) as this =
    inherit torch.nn.Module("MultiHeadAttention")

    let _embeddingDim = embeddingDim
    let _kDim = defaultArg kDim embeddingDim
    let _vDim = defaultArg vDim embeddingDim
    let _qkvSameDim = (_kDim = _embeddingDim) && (_vDim = _embeddingDim)

    let _numHeads = numHeads
    let _dropout = defaultArg dropout 0.0
    let _headDim = _embeddingDim / _numHeads
    let _scaling = Math.Pow(float _headDim, -0.5)
    do
        if _headDim * _numHeads <> _embeddingDim then
            raise (ArgumentException("EmbeddingDim must be divisible by NumHeads"))

    let _selfAttention = defaultArg selfAttention false
    let _encoderDecoderAttention = defaultArg encoderDecoderAttention false
    do
        if _selfAttention && not _qkvSameDim then
            raise (ArgumentException("Self-attention requires query, key and value to be of the same size"))

    let _addBiasProj = defaultArg bias true
    let _addBiasKv = defaultArg addBiasKv false
    let _addZeroAttention = defaultArg addZeroAttention false

    let QProjection = torch.nn.Linear(int64 _embeddingDim, int64 _embeddingDim, _addBiasProj)
    let KProjection = torch.nn.Linear(int64 _kDim, int64 _embeddingDim, _addBiasProj)
    let VProjection = torch.nn.Linear(int64 _vDim, int64 _embeddingDim, _addBiasProj)

    let KBias : Parameter = if _addBiasKv then torch.zeros(1L, 1L, int64 _embeddingDim).AsParameter() else null
    let VBias : Parameter = if _addBiasKv then torch.zeros(1L, 1L, int64 _embeddingDim).AsParameter() else null

    let OutProjLinear = torch.nn.Linear(int64 _embeddingDim, int64 _embeddingDim, _addBiasProj)
    let DropoutLayer = torch.nn.Dropout(_dropout)

    do
        // Initialize()
        if _qkvSameDim then
            torch.nn.init.xavier_uniform_(QProjection.weight, 1.0 / Math.Sqrt(2.0)) |> ignore
            torch.nn.init.xavier_uniform_(KProjection.weight, 1.0 / Math.Sqrt(2.0)) |> ignore
            torch.nn.init.xavier_uniform_(VProjection.weight, 1.0 / Math.Sqrt(2.0)) |> ignore
        else
            torch.nn.init.xavier_uniform_(QProjection.weight) |> ignore
            torch.nn.init.xavier_uniform_(KProjection.weight) |> ignore
            torch.nn.init.xavier_uniform_(VProjection.weight) |> ignore
        torch.nn.init.xavier_uniform_(OutProjLinear.weight) |> ignore
        if _addBiasProj then
            torch.nn.init.constant_(QProjection.bias, 0) |> ignore
            torch.nn.init.constant_(KProjection.bias, 0) |> ignore
            torch.nn.init.constant_(VProjection.bias, 0) |> ignore
            torch.nn.init.constant_(OutProjLinear.bias, 0) |> ignore
        if _addBiasKv then
            torch.nn.init.xavier_uniform_(KBias) |> ignore
            torch.nn.init.xavier_uniform_(VBias) |> ignore
        this.RegisterComponents()

    /// Input shape: seqLen x batch x channel
    /// Time-steps can be masked by supplying a T x T mask in the attentionMask argument.
    /// Padding elements can be excluded from the key by passing a binary ByteTensor (keyPaddingMask)
    ///     with shape: batch x srcLen, where padding elements are indicated by 1s.
    member this.forward(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                        keyPaddingMask: torch.Tensor, needWeights: bool, attentionMask: torch.Tensor) : torch.Tensor * torch.Tensor =
        let mutable outAttentionWeights : torch.Tensor = null

        if isNull query || query.size().Length <> 3 || query.size(2) <> int64 _embeddingDim then
            raise (ArgumentException("query must NOT be null and must be 3D in multi-head attention;" +
                                     "the last dimension should be the same as embedding dimension."))

        use disposeScope = torch.NewDisposeScope()

        let qSize = query.size()
        let tgtLen = qSize[0]
        let batchSize = qSize[1]
        let embedDim = qSize[2]

        // Calculate current qkv projection
        let struct (q, k, v) = this.QkvProjection(query, key, value)
        let mutable q = q
        let mutable k = k
        let mutable v = v

        // Simulate using-statement by try-finally
        let mutable attentionMaskPad = if isNull attentionMask then null else attentionMask.alias()
        let mutable keyPaddingMaskPad = if isNull keyPaddingMask then null else keyPaddingMask.alias()
        q.mul_(_scaling.ToScalar()) |> ignore

        if _addBiasKv then
            let kRepeat = KBias.repeat(1L, batchSize, 1L)
            let vRepeat = VBias.repeat(1L, batchSize, 1L)
            k <- torch.cat(ResizeArray [ k; kRepeat ], dim = 0L)
            v <- torch.cat(ResizeArray [ v; vRepeat ], dim = 0L)
            attentionMaskPad <- MultiHeadAttention.PadMask(attentionMaskPad)
            keyPaddingMaskPad <- MultiHeadAttention.PadMask(keyPaddingMaskPad)

        q <- q.view(tgtLen, batchSize * int64 _numHeads, int64 _headDim).transpose_(0L, 1L)
        k <- if isNull k then null else k.view(-1L, batchSize * int64 _numHeads, int64 _headDim).transpose_(0L, 1L)
        v <- if isNull v then null else v.view(-1L, batchSize * int64 _numHeads, int64 _headDim).transpose_(0L, 1L)

        let mutable srcLen = k.size(1)

        // This is part of a workaround to get around fork/join parallelism not supporting Optional types.
        if not (isNull keyPaddingMaskPad) && keyPaddingMaskPad.shape.Length = 0 then keyPaddingMaskPad <- null

        if _addZeroAttention then
            srcLen <- srcLen + 1L
            let zeroPadSize = k.size()
            zeroPadSize[1] <- 1L
            let kZeros = k.new_zeros(zeroPadSize)
            let vZeros = v.new_zeros(zeroPadSize)
            k <- torch.cat(ResizeArray [ k; kZeros ], dim = 1L)
            v <- torch.cat(ResizeArray [ v; vZeros ], dim = 1L)
            attentionMaskPad <- MultiHeadAttention.PadMask(attentionMaskPad)
            keyPaddingMaskPad <- MultiHeadAttention.PadMask(keyPaddingMaskPad)

        let mutable attentionWeights = torch.matmul(q, k.transpose(1L, 2L))

        if not (isNull attentionMaskPad) then
            attentionWeights.add_(attentionMaskPad.unsqueeze(0L)) |> ignore

        if not (isNull keyPaddingMaskPad) then
            // Don't attend to pad symbols
            keyPaddingMaskPad <- keyPaddingMaskPad.unsqueeze(1L).unsqueeze(2L)

            attentionWeights <-
                attentionWeights
                    .view(batchSize, int64 _numHeads, tgtLen, srcLen)
                    .masked_fill(keyPaddingMaskPad, Single.NegativeInfinity)
                    .view(batchSize * int64 _numHeads, tgtLen, srcLen)

        attentionWeights <- torch.nn.functional.softmax(attentionWeights, dim = -1L)
        attentionWeights <- DropoutLayer.forward(attentionWeights)

        if needWeights then
            // Average attention weights over heads
            let weightsView = attentionWeights.view(batchSize, int64 _numHeads, tgtLen, srcLen)
            outAttentionWeights <- weightsView.sum(dim = 1L).div_(_numHeads.ToScalar())

        let mutable attention = torch.matmul(attentionWeights, v)
        attention <- attention.transpose(0L, 1L).contiguous().view(tgtLen, batchSize, embedDim)
        let attentionOutput = OutProjLinear.forward(attention)

        if not (isNull outAttentionWeights) then outAttentionWeights.MoveToOuterDisposeScope() |> ignore
        attentionOutput.MoveToOuterDisposeScope(), outAttentionWeights

    static member private PadMask(tensor: torch.Tensor) : torch.Tensor =
        if isNull tensor then
            null
        else
            use zeros = tensor.new_zeros(tensor.size(0), 1L)
            torch.cat(ResizeArray [ tensor; zeros ], dim = 1L)

    member private this.QkvProjection(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor) : struct (torch.Tensor * torch.Tensor * torch.Tensor) =
        use disposeScope = torch.NewDisposeScope()

        let mutable q : torch.Tensor = null
        let mutable k : torch.Tensor = null
        let mutable v : torch.Tensor = null
        if _selfAttention then
            q <- QProjection.forward(query)
            k <- KProjection.forward(query)
            v <- VProjection.forward(query)
        elif _encoderDecoderAttention then
            q <- QProjection.forward(query)
            if isNull key then
                k <- null
                v <- null
            else
                k <- KProjection.forward(key)
                v <- VProjection.forward(key)
        else
            q <- QProjection.forward(query)
            k <- KProjection.forward(key)
            v <- VProjection.forward(value)

        struct (q.MoveToOuterDisposeScope(), k.MoveToOuterDisposeScope(), v.MoveToOuterDisposeScope())

type SelfAttentionLayer(?embeddingDim: int, ?numAttentionHeads: int, ?dropoutRate: float, ?attentionDropoutRate: float,
                        ?addBiasKv: bool, ?addZeroAttention: bool) as this =
    inherit torch.nn.Module<torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor>("SelfAttentionLayer")

    let embeddingDim = defaultArg embeddingDim 768
    let SelfAttention =
        new MultiHeadAttention(
            embeddingDim,
            defaultArg numAttentionHeads 8,
            dropout = defaultArg attentionDropoutRate 0.1,
            addBiasKv = defaultArg addBiasKv false,
            addZeroAttention = defaultArg addZeroAttention false,
            selfAttention = true)
    let DropoutLayer = torch.nn.Dropout(defaultArg dropoutRate 0.1)

    // Layer norm associated with the self attention layer
    let LayerNorm = torch.nn.LayerNorm([| int64 embeddingDim |])

    do this.RegisterComponents()

    /// LayerNorm is applied either before or after the self-attention/ffn modules
    ///     similar to the original Transformer implementation.
    [<ReflectedDefinition>]
    override _.forward(x: torch.Tensor, selfAttentionMask: torch.Tensor, selfAttentionPaddingMask: torch.Tensor) =
        use disposeScope = torch.NewDisposeScope()

        let attention, _ =
            SelfAttention.forward(query = x, key = x, value = x,
                                  keyPaddingMask = selfAttentionPaddingMask,
                                  needWeights = false,
                                  attentionMask = selfAttentionMask)
        let dropout = DropoutLayer.forward(attention)
        dropout.add_(x) |> ignore
        let norm = LayerNorm.forward(dropout)
        norm.MoveToOuterDisposeScope()

// ---- the entries ----------------------------------------------------------------------------

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let private evaluating (m: #torch.nn.Module) = m.eval() |> ignore; m

let attention = new MultiHeadAttention(32, 4, dropout = 0.1, selfAttention = true) |> evaluating
let layer = new SelfAttentionLayer(embeddingDim = 32, numAttentionHeads = 4) |> evaluating

// x [seq, batch, embedding], key padding mask [batch, seq] (true: padding) -> the attention
// output and the attention weights averaged over the heads [batch, seq, seq]
[<Kgen.Entry("float32[8,2,32], bool[2,8]")>]
let nasbert_multihead_attention =
    <@ fun (x: torch.Tensor) (keyPaddingMask: torch.Tensor) ->
        attention.forward(x, x, x, keyPaddingMask, true, null) @>

// as TransformerEncoder calls it: no attention mask, the padding mask of the tokens
[<Kgen.Entry("float32[8,2,32], bool[2,8]")>]
let nasbert_self_attention_layer =
    <@ fun (x: torch.Tensor) (paddingMask: torch.Tensor) -> layer.forward(x, null, paddingMask) @>
