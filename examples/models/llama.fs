// llama: the Llama blocks of Microsoft.ML.GenAI (dotnet/machinelearning) — RMSNorm, the SwiGLU
// MLP, the rotary embedding, grouped-query attention and the decoder layer that joins them —
// transcribed from C# into F#.
//
// Source: https://github.com/dotnet/machinelearning, commit cd2fbd617c13bcb98ec8b6554bfa20ac603e4572
//   src/Microsoft.ML.GenAI.Core/Module/RMSNorm.cs, Module/GenAILinear.cs, Module/RotaryEmbedding.cs,
//   Module/Attention.cs, Utils.cs (RotateHalf, ApplyRotaryPosEmb, RepeatKV, GetActivation);
//   src/Microsoft.ML.GenAI.LLaMA/Module/LlamaMLP.cs, Module/LlamaDecoderLayer.cs, LlamaConfig.cs
// Changes F# needs: [<ReflectedDefinition>] on the forwards, on RMSNorm.Norm and on Utils (F#
// keeps no body for kgen without it); `x.pow(2)` is x.pow((2).ToScalar()) (F# cannot choose between
// pow(Scalar) and pow(Tensor) from an int); GenAILinear is [<AllowNullLiteral>] (C# nullable
// fields); C# ranges `qkv[.., .., ..n]` are TensorIndex.Slice; the
// forwards' input/output classes are their tensor arguments and results: RotaryEmbedding is a
// Module<Tensor, Tensor, Tensor * Tensor> (x, positionIds -> cos, sin; its unused SeqLen
// dropped), Attention a Module<Tensor, Tensor * Tensor, Tensor, Tensor> (hiddenStates,
// positionalEmbeddings (cos, sin), attentionMask -> hidden states; its unused PositionIds
// dropped, no KV cache, OutputAttentions false), LlamaDecoderLayer the same; C#'s `Contract.Assert`
// shape checks are left out. QuantizedLinear without quantization (a `weight` buffer) is
// `base.forward`, GenAILinear.forward: the modules hold GenAILinear.
// Sizes: hidden 64, 4 heads of 16, 2 key/value heads (grouped-query, as Llama 3), intermediate
// 128, no biases; batch 2, sequence 8. The GenAI linears are made of zeros (weights are loaded
// from a checkpoint); the entries fill them with random values instead.
module Models.Llama

open System
open System.Diagnostics.Contracts
open TorchSharp
open type TorchSharp.torch
open type TorchSharp.torch.TensorIndex
open TorchSharp.Modules
open FSharp.Core.Operators   // reclaim int64, float ... from `open type torch`

// ---- LlamaConfig.cs (the members the modules read) -------------------------------------------

type LlamaConfig() =
    member val AttentionBias = false with get, set
    member val AttentionDropout = 0.0 with get, set
    member val HiddenAct = "silu" with get, set
    member val HiddenSize = 4096 with get, set
    member val IntermediateSize = 14336 with get, set
    member val MaxPositionEmbeddings = 131072 with get, set
    member val MlpBias = false with get, set
    member val NumAttentionHeads = 32 with get, set
    member val NumKeyValueHeads = 8 with get, set
    member val PretrainingTp = 1 with get, set
    member val RmsNormEps = 1e-5f with get, set
    member val RopeTheta = 500000.0 with get, set
    member val DType = ScalarType.BFloat16 with get, set

// ---- Microsoft.ML.GenAI.Core/Utils.cs ----------------------------------------------------------

[<AbstractClass; Sealed; ReflectedDefinition>]
type Utils =

    static member RotateHalf(x: Tensor) =
        let x1 = x[Colon, Colon, Colon, Slice(stop = x.shape[x.shape.Length - 1] / 2L)]   // C#: x[.., .., .., ..(int)(x.shape[^1] / 2)]
        let x2 = x[Colon, Colon, Colon, Slice(start = x.shape[x.shape.Length - 1] / 2L)]
        torch.cat([| -x2; x1 |], dim = -1L)

    static member ApplyRotaryPosEmb(q: Tensor, k: Tensor, cos: Tensor, sin: Tensor,
                                    [<Runtime.InteropServices.Optional; Runtime.InteropServices.DefaultParameterValue(null: Tensor)>] positionIds: Tensor,
                                    [<Runtime.InteropServices.Optional; Runtime.InteropServices.DefaultParameterValue(1)>] unsqueezeDim: int) =
        // The 'unsqueeze_dim' argument specifies the dimension along which to unsqueeze cos[position_ids] and
        // sin[position_ids] so that they can be properly broadcasted to the dimensions of q and k.
        let mutable cos = cos
        let mutable sin = sin
        if not (isNull positionIds) then
            cos <- cos[positionIds].unsqueeze(unsqueezeDim)
            sin <- sin[positionIds].unsqueeze(unsqueezeDim)
        else
            cos <- cos.unsqueeze(unsqueezeDim)
            sin <- sin.unsqueeze(unsqueezeDim)

        let mutable qEmbed = q * cos
        qEmbed <- qEmbed + Utils.RotateHalf(q) * sin

        let mutable kEmbed = k * cos
        kEmbed <- kEmbed + Utils.RotateHalf(k) * sin
        (qEmbed, kEmbed)

    [<NoCompilerInlining>]
    static member GetActivation(actFn: string) : nn.Module<Tensor, Tensor> =
        match actFn with
        | "silu" -> nn.SiLU()
        | "relu" -> nn.ReLU()
        | "gelu" -> nn.GELU()
        | "tanh" -> nn.Tanh()
        | "swish" -> nn.SiLU()
        | _ -> raise (ArgumentException("Invalid activation function", actFn))

    static member RepeatKV(x: Tensor, nRep: int) =
        let batchSize = x.shape[0]
        let nKVHeads = x.shape[1]
        let seqLen = x.shape[2]
        let headDim = x.shape[3]
        if nRep = 1 then
            x
        else
            x.unsqueeze(2)
                .expand(batchSize, nKVHeads, int64 nRep, seqLen, headDim)
                .reshape(batchSize, nKVHeads * int64 nRep, seqLen, headDim)

// ---- Microsoft.ML.GenAI.Core/Module/GenAILinear.cs ----------------------------------------------

[<AllowNullLiteral>]
type GenAILinear(inFeatures: int, outFeatures: int, ?hasBias: bool, ?dtype: ScalarType, ?device: string) as this =
    inherit nn.Module<Tensor, Tensor>("GenAILinear")

    let _inFeatures = inFeatures
    let _outFeatures = outFeatures
    let device = defaultArg device (torch.get_default_device().ToString())
    let dtype = defaultArg dtype ScalarType.Float32
    let weight : Tensor = torch.zeros(int64 outFeatures, int64 inFeatures, dtype = dtype, device = device)
    let bias : Tensor = if defaultArg hasBias true then torch.zeros(int64 outFeatures, dtype = dtype, device = device) else null

    do this.RegisterComponents()

    member _.Weight = weight

    [<ReflectedDefinition>]
    override _.forward(input: Tensor) =
        use dispose = torch.NewDisposeScope()

        // use float32
        let input2 = input.to_type(ScalarType.Float32)
        let weight2 = weight.to_type(ScalarType.Float32)
        let mutable result = torch.matmul(input2, weight2.t())

        if not (isNull bias) then
            result <- result + bias.to_type(ScalarType.Float32)

        result.to_type(input.dtype).MoveToOuterDisposeScope()

// ---- Microsoft.ML.GenAI.Core/Module/RMSNorm.cs ----------------------------------------------------

type RMSNorm(hiddenSize: int, ?eps: float32, ?dtype: ScalarType) =
    inherit nn.Module<Tensor, Tensor>("RMSNorm")

    let _dim = hiddenSize
    let _eps = defaultArg eps 1e-6f

    // the gamma scalar
    let weight = nn.Parameter(torch.ones(int64 _dim, dtype = defaultArg dtype ScalarType.Float32))

    [<ReflectedDefinition>]
    member private _.Norm(x: Tensor) =
        // (B, Seq_Len, Dim) * (B, Seq_Len, 1) = (B, Seq_Len, Dim)
        // rsqrt = 1 / sqrt
        let output = x * torch.rsqrt(x.pow((2).ToScalar()).mean([| -1L |], keepdim = true) + _eps)
        output

    [<ReflectedDefinition>]
    override this.forward(input: Tensor) =
        // needs higher precision for the norm so convert to float32
        // (B, Seq_Len, Dim)
        let normed = this.Norm(input.to_type(ScalarType.Float32)).type_as(input)
        // (B, Seq_Len, Dim) * (Dim) = (B, Seq_Len, Dim)
        let output = weight * normed

        output

// ---- Microsoft.ML.GenAI.LLaMA/Module/LlamaMLP.cs -------------------------------------------------

type LlamaMLP(config: LlamaConfig) as this =
    inherit nn.Module<Tensor, Tensor>("LlamaMLP")

    let _hiddenSize = config.HiddenSize
    let _intermediateSize = config.IntermediateSize
    let _hasBias = config.MlpBias
    let _pretrainingTp = config.PretrainingTp
    let hiddenAct = config.HiddenAct
    let gate_proj = new GenAILinear(_hiddenSize, _intermediateSize, hasBias = _hasBias, dtype = config.DType)
    let up_proj = new GenAILinear(_hiddenSize, _intermediateSize, hasBias = _hasBias, dtype = config.DType)
    let down_proj = new GenAILinear(_intermediateSize, _hiddenSize, hasBias = _hasBias, dtype = config.DType)
    do this.RegisterComponents()
    let activation_fn = Utils.GetActivation(hiddenAct)

    [<ReflectedDefinition>]
    override _.forward(input: Tensor) =
        if _pretrainingTp > 1 then
            raise (NotImplementedException("PretrainingTp > 1 is not supported yet."))

        use input1 = gate_proj.forward(input)
        use input2 = activation_fn.forward(input1)
        use input3 = input2 * up_proj.forward(input)
        down_proj.forward(input3)

// ---- Microsoft.ML.GenAI.Core/Module/RotaryEmbedding.cs ----------------------------------------------

type RotaryEmbedding(baseValue: float, maxPositionEmbeddings: int, dim: int) as this =
    inherit nn.Module<Tensor, Tensor, Tensor * Tensor>("RotaryEmbedding")

    let _base = baseValue
    let _maxPositionEmbeddings = maxPositionEmbeddings
    let _dim = dim
    do
        // config.RopeType = "default"
        let thetaNumerator = torch.arange(0, _dim, 2, dtype = ScalarType.Int64).``to``(torch.float32)
        this.register_buffer("inv_freq", torch.pow(baseValue, -1.0f * (thetaNumerator / dim)), persistent = false)

    member _.Dim = _dim

    [<ReflectedDefinition>]
    override this.forward(x: Tensor, positionIds: Tensor) =
        // TODO
        // can be calculated once and cached
        let invFreq = this.get_buffer("inv_freq").``to``(x.device)
        let mutable invFreqExpanded = invFreq.unsqueeze(0).unsqueeze(-1)
        invFreqExpanded <- invFreqExpanded.expand([| positionIds.shape[0]; -1L; 1L |])
        let positionIdsExpanded = positionIds.unsqueeze(1).``to``(torch.float32)
        let mutable freqs = invFreqExpanded * positionIdsExpanded
        freqs <- freqs.transpose(1, 2)
        let emb = torch.cat([| freqs; freqs |], dim = -1L)

        let cos = torch.cos(emb)
        let sin = torch.sin(emb)

        (cos.to_type(x.dtype), sin.to_type(x.dtype))

// ---- Microsoft.ML.GenAI.Core/Module/Attention.cs ----------------------------------------------------

type Attention(attentionDropout: float, hiddenSize: int, numHeads: int, headDim: int, numKeyValueHeads: int,
               numKeyValueGroups: int, maxPositionEmbeddings: int, originalMaxPositionEmbeddings: int,
               layerIdx: int, dtype: ScalarType, ?attentionBias: bool, ?useQkvProj: bool) as this =
    inherit nn.Module<Tensor, Tensor * Tensor, Tensor, Tensor>("Attention")

    let _layerIdx = layerIdx
    let _attentionDropout = attentionDropout
    let _hiddenSize = hiddenSize
    let _numHeads = numHeads
    let _headDim = headDim
    let _numKeyValueHeads = numKeyValueHeads
    let _numKeyValueGroups = numKeyValueGroups
    let attentionBias = defaultArg attentionBias false
    let useQkvProj = defaultArg useQkvProj true

    do Contract.Assert(_hiddenSize % (_headDim * _numHeads) = 0, "hidden_size must be divisible by num_heads")

    let o_proj = new GenAILinear(_hiddenSize, _hiddenSize, hasBias = attentionBias, dtype = dtype)
    let opSize = _numHeads * _headDim + 2 * (_numKeyValueHeads * _headDim)
    let qkv_proj : GenAILinear = if useQkvProj then new GenAILinear(_hiddenSize, opSize, hasBias = attentionBias, dtype = dtype) else null
    let q_proj : GenAILinear = if useQkvProj then null else new GenAILinear(_hiddenSize, _numHeads * _headDim, hasBias = attentionBias, dtype = dtype)
    let k_proj : GenAILinear = if useQkvProj then null else new GenAILinear(_hiddenSize, _numKeyValueHeads * _headDim, hasBias = attentionBias, dtype = dtype)
    let v_proj : GenAILinear = if useQkvProj then null else new GenAILinear(_hiddenSize, _numKeyValueHeads * _headDim, hasBias = attentionBias, dtype = dtype)
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override this.forward(hiddenStates: Tensor, positionalEmbeddings: Tensor * Tensor, attentionMask: Tensor) =
        use _ = torch.NewDisposeScope()
        let bsz = hiddenStates.shape[0]
        let qLen = hiddenStates.shape[1]

        let (queryStates: Tensor), (keyStates: Tensor), (valueStates: Tensor) =
            if not (isNull qkv_proj) then
                let qkv = qkv_proj.forward(hiddenStates)
                let queryPos = _numHeads * _headDim
                qkv[Colon, Colon, Slice(stop = int64 queryPos)],
                qkv[Colon, Colon, Slice(int64 queryPos, int64 (queryPos + _numKeyValueHeads * _headDim))],
                qkv[Colon, Colon, Slice(int64 (queryPos + _numKeyValueHeads * _headDim))]
            elif not (isNull q_proj) && not (isNull k_proj) && not (isNull v_proj) then
                q_proj.forward(hiddenStates), k_proj.forward(hiddenStates), v_proj.forward(hiddenStates)
            else
                raise (InvalidOperationException("Invalid state, either qkv_proj or q_proj, k_proj, v_proj should be initialized"))

        let mutable queryStates = queryStates.view(bsz, qLen, _numHeads, _headDim).transpose(1, 2)
        let mutable keyStates = keyStates.view(bsz, qLen, _numKeyValueHeads, _headDim).transpose(1, 2)
        let mutable valueStates = valueStates.view(bsz, qLen, _numKeyValueHeads, _headDim).transpose(1, 2)
        let kvSeqLen = keyStates.shape[keyStates.shape.Length - 2]   // C#: keyStates.IntShape()[^2]
        let (cos, sin) = positionalEmbeddings
        let (q, k) = Utils.ApplyRotaryPosEmb(queryStates, keyStates, cos, sin)
        queryStates <- q
        keyStates <- k

        // repeat k/v heads if n_kv_heads < n_heads
        keyStates <- Utils.RepeatKV(keyStates, _numKeyValueGroups)
        valueStates <- Utils.RepeatKV(valueStates, _numKeyValueGroups)

        // to fp32 to avoid overflow
        let mutable attnWeights = torch.matmul(queryStates, keyStates.transpose(2, 3))
        attnWeights <- attnWeights / Math.Sqrt(float _headDim)

        if not (isNull attentionMask) then
            attnWeights <- attnWeights + attentionMask

        // upscale attention to fp32 to avoid overflow
        attnWeights <- nn.functional.softmax(attnWeights, dim = -1, dtype = ScalarType.Float32).``to``(valueStates.dtype)
        attnWeights <- nn.functional.dropout(attnWeights, _attentionDropout, this.training)

        let mutable attnOutput = torch.matmul(attnWeights, valueStates)

        attnOutput <- attnOutput.transpose(1, 2).contiguous()
        attnOutput <- attnOutput.reshape(bsz, qLen, _hiddenSize)

        attnOutput <- o_proj.forward(attnOutput)

        attnOutput.MoveToOuterDisposeScope()

// ---- Microsoft.ML.GenAI.LLaMA/Module/LlamaDecoderLayer.cs ------------------------------------------

type LlamaDecoderLayer(config: LlamaConfig, layerIndex: int) as this =
    inherit nn.Module<Tensor, Tensor * Tensor, Tensor, Tensor>("LlamaDecoderLayer")

    let _llamaConfig = config
    let _layerIndex = layerIndex
    let _hiddenSize = config.HiddenSize

    static let createAttention (config: LlamaConfig) (layerIndex: int) =
        let headDim = config.HiddenSize / config.NumAttentionHeads
        new Attention(
            attentionDropout = config.AttentionDropout,
            hiddenSize = config.HiddenSize,
            numHeads = config.NumAttentionHeads,
            headDim = headDim,
            numKeyValueHeads = config.NumKeyValueHeads,
            numKeyValueGroups = config.NumAttentionHeads / config.NumKeyValueHeads,
            maxPositionEmbeddings = config.MaxPositionEmbeddings,
            originalMaxPositionEmbeddings = config.MaxPositionEmbeddings,
            layerIdx = layerIndex,
            useQkvProj = false,
            dtype = config.DType,
            attentionBias = config.AttentionBias)

    let self_attn = createAttention config layerIndex
    let mlp = new LlamaMLP(config)
    let input_layernorm = new RMSNorm(_hiddenSize, eps = config.RmsNormEps, dtype = config.DType)
    let post_attention_layernorm = new RMSNorm(_hiddenSize, eps = config.RmsNormEps, dtype = config.DType)
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(hiddenStates: Tensor, positionalEmbeddings: Tensor * Tensor, attentionMask: Tensor) =
        use disposeScope = torch.NewDisposeScope()
        let mutable residual = hiddenStates
        let mutable hiddenStates = input_layernorm.forward(hiddenStates)

        let selfAttnOutput = self_attn.forward(hiddenStates, positionalEmbeddings, attentionMask)

        hiddenStates <- residual + selfAttnOutput

        // Fully connected
        residual <- hiddenStates
        hiddenStates <- post_attention_layernorm.forward(hiddenStates)
        hiddenStates <- mlp.forward(hiddenStates)
        hiddenStates <- residual + hiddenStates

        hiddenStates.MoveToOuterDisposeScope()

// ---- the entries -----------------------------------------------------------------------------------

let config =
    LlamaConfig(HiddenSize = 64, IntermediateSize = 128, NumAttentionHeads = 4, NumKeyValueHeads = 2,
                MaxPositionEmbeddings = 64, DType = ScalarType.Float32)

/// Eval mode, and random values in the GenAI linears (a stand-in for loading a checkpoint).
// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let private loaded (m: #nn.Module) =
    m.eval() |> ignore
    for struct (_, sub) in m.named_modules() do
        match sub with
        | :? GenAILinear as l -> torch.nn.init.normal_(l.Weight, std = 0.02) |> ignore
        | _ -> ()
    m

let rmsNorm = new RMSNorm(config.HiddenSize, eps = config.RmsNormEps, dtype = config.DType) |> loaded
let mlp = new LlamaMLP(config) |> loaded
let rotaryEmb = new RotaryEmbedding(config.RopeTheta, config.MaxPositionEmbeddings, config.HiddenSize / config.NumAttentionHeads) |> loaded
let attention =
    new Attention(config.AttentionDropout, config.HiddenSize, config.NumAttentionHeads, config.HiddenSize / config.NumAttentionHeads,
                  config.NumKeyValueHeads, config.NumAttentionHeads / config.NumKeyValueHeads, config.MaxPositionEmbeddings,
                  config.MaxPositionEmbeddings, 0, config.DType, attentionBias = false, useQkvProj = false) |> loaded
let decoderLayer = new LlamaDecoderLayer(config, 0) |> loaded

[<Kgen.Entry("float32[2,8,64]")>]
let llama_rmsnorm = <@ fun (input: Tensor) -> rmsNorm.forward(input) @>

[<Kgen.Entry("float32[2,8,64]")>]
let llama_mlp = <@ fun (input: Tensor) -> mlp.forward(input) @>

// hidden states (only their dtype and device are read), position ids -> cos, sin [2, 8, 16]
[<Kgen.Entry("float32[2,8,64], int64[2,8] in [0, 64)")>]
let llama_rotary_embedding = <@ fun (x: Tensor) (positionIds: Tensor) -> rotaryEmb.forward(x, positionIds) @>

// hidden states, the rotary embedding's cos and sin, the 4-D additive mask [bsz, 1, q_len, kv_len]
[<Kgen.Entry("float32[2,8,64], float32[2,8,16] in [-1, 1), float32[2,8,16] in [-1, 1), float32[2,1,8,8]")>]
let llama_attention =
    <@ fun (hiddenStates: Tensor) (cos: Tensor) (sin: Tensor) (attentionMask: Tensor) ->
        attention.forward(hiddenStates, (cos, sin), attentionMask) @>

[<Kgen.Entry("float32[2,8,64], float32[2,8,16] in [-1, 1), float32[2,8,16] in [-1, 1), float32[2,1,8,8]")>]
let llama_decoder_layer =
    <@ fun (hiddenStates: Tensor) (cos: Tensor) (sin: Tensor) (attentionMask: Tensor) ->
        decoderLayer.forward(hiddenStates, (cos, sin), attentionMask) @>
