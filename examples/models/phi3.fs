// phi3: the Phi-3 attention (fused qkv projection, rotary embedding, repeat-kv, softmax in
// float32, output projection) and MLP (fused gate/up projection, chunk, SiLU gate) of
// LittleLittleCloud's TorchSharp port of Phi, transcribed from C# into F#.
//
// Source: https://github.com/LittleLittleCloud/Torchsharp-phi, commit 6db538bc88c01faa2e4e7c962a5d57b8a9a23f99
//   Module/Phi3Attention.cs, Module/Phi3MLP.cs, Module/Phi3RotaryEmbedding.cs,
//   Utils.cs (RotateHalf, ApplyRotaryPosEmb, Phi3RepeatKV, GetActivation), Phi3/Config.cs
// Changes F# needs: [<ReflectedDefinition>] on the forwards and on Utils (F# keeps no body for
// kgen without it); C# ranges `qkv[.., .., ..n]` are TensorIndex.Slice (F# has no Range
// literals); the forward's input/output classes are its tensor arguments and result:
// Phi3Attention is a Module<Tensor, Tensor, Tensor, Tensor> (hidden_states, position_ids,
// attention_mask -> hidden states; no KV cache, output_attentions false) and
// Phi3RotaryEmbedding a Module<Tensor, Tensor, Tensor * Tensor> (x, position_ids -> cos, sin;
// its unused SeqLen dropped); the FluentAssertions shape checks are left out.
// Sizes: hidden 64, 4 heads of 16 (as many key/value heads: Phi-3 mini), intermediate 128;
// batch 2, sequence 8. Phi3SuScaledRotaryEmbedding (rope_scaling set) is not transcribed.
module Models.Phi3

open System
open System.Collections.Generic
open System.Runtime.InteropServices
open TorchSharp
open type TorchSharp.torch
open type TorchSharp.torch.TensorIndex
open TorchSharp.Modules
open FSharp.Core.Operators   // reclaim int64, float ... from `open type torch`

// ---- Phi3/Config.cs (the members the modules read) -----------------------------------------

type Phi3Config() =
    member val HiddenSize = 3072 with get, set
    member val IntermediateSize = 8192 with get, set
    member val NumAttentionHeads = 32 with get, set
    member val NumKeyValueHeads : Nullable<int> = Nullable() with get, set
    member val AttentionDropout = 0.0 with get, set
    member val HiddenAct = "silu" with get, set
    member val MaxPositionEmbeddings = 4096 with get, set
    member val OriginalMaxPositionEmbeddings = 4096 with get, set
    member val RopeTheta = 10000.0 with get, set
    member val RopeScaling : Dictionary<string, obj> = null with get, set
    member val DType = ScalarType.BFloat16 with get, set

// ---- Utils.cs ----------------------------------------------------------------------------

[<AbstractClass; Sealed; ReflectedDefinition>]
type Utils =

    // python
    // def rotate_half(x):
    // """Rotates half the hidden dims of the input."""
    // x1 = x[..., : x.shape[-1] // 2]
    // x2 = x[..., x.shape[-1] // 2 :]
    // return torch.cat((-x2, x1), dim=-1)
    static member RotateHalf(x: Tensor) =
        let x1 = x[Colon, Colon, Colon, Slice(stop = x.shape[x.shape.Length - 1] / 2L)]   // C#: x[.., .., .., ..(int)(x.shape[^1] / 2)]
        let x2 = x[Colon, Colon, Colon, Slice(start = x.shape[x.shape.Length - 1] / 2L)]
        torch.cat([| -x2; x1 |], dim = -1L)

    static member ApplyRotaryPosEmb(q: Tensor, k: Tensor, cos: Tensor, sin: Tensor,
                                    [<Optional; DefaultParameterValue(null: Tensor)>] positionIds: Tensor,
                                    [<Optional; DefaultParameterValue(1)>] unsqueezeDim: int) =
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
    static member GetActivation(act_fn: string) : nn.Module<Tensor, Tensor> =
        match act_fn with
        | "silu" -> nn.SiLU()
        | "relu" -> nn.ReLU()
        | "gelu" -> nn.GELU()
        | "tanh" -> nn.Tanh()
        | "swish" -> nn.SiLU()
        | _ -> raise (ArgumentException("Invalid activation function", act_fn))

    static member Phi3RepeatKV(x: Tensor, nRep: int) =
        let batchSize = x.shape[0]
        let nKVHeads = x.shape[1]
        let seqLen = x.shape[2]
        let headDim = x.shape[3]
        if nRep = 1 then
            x
        else
            x.unsqueeze(3)
                .expand(batchSize, nKVHeads, int64 nRep, seqLen, headDim)
                .view(batchSize, nKVHeads * int64 nRep, seqLen, headDim)

// ---- Module/Phi3MLP.cs -------------------------------------------------------------------

type Phi3MLP(hiddenSize: int, intermediateSize: int, hiddenAct: string, dtype: ScalarType) as this =
    inherit nn.Module<Tensor, Tensor>("Phi3MLP")

    let gate_up_proj = nn.Linear(int64 hiddenSize, int64 (2 * intermediateSize), hasBias = false, dtype = dtype)
    let down_proj = nn.Linear(int64 intermediateSize, int64 hiddenSize, hasBias = false, dtype = dtype)
    do this.RegisterComponents()
    let activation_fn = Utils.GetActivation(hiddenAct)

    new(config: Phi3Config) = new Phi3MLP(config.HiddenSize, config.IntermediateSize, config.HiddenAct, config.DType)

    [<ReflectedDefinition>]
    override _.forward(input: Tensor) =
        use input1 = gate_up_proj.forward(input)
        let chunks = input1.chunk(2, dim = -1)
        let gate = chunks[0]
        let mutable up_status = chunks[1]
        up_status <- up_status * activation_fn.forward(gate)
        down_proj.forward(up_status)

// ---- Module/Phi3RotaryEmbedding.cs ---------------------------------------------------------

type Phi3RotaryEmbedding(baseValue: float, maxPositionEmbeddings: int, dim: int) as this =
    inherit nn.Module<Tensor, Tensor, Tensor * Tensor>("Phi3RotaryEmbedding")

    let _base = baseValue
    let _maxPositionEmbeddings = maxPositionEmbeddings
    let _dim = dim
    do
        let thetaNumerator = torch.arange(0, _dim, 2, dtype = ScalarType.Int64).``to``(torch.float32)
        this.register_buffer("inv_freq", torch.pow(baseValue, -1.0f * (thetaNumerator / dim)), persistent = false)

    member _.Dim = _dim

    [<ReflectedDefinition>]
    override this.forward(x: Tensor, position_ids: Tensor) =
        // TODO
        // can be calculated once and cached
        let inv_freq = this.get_buffer("inv_freq").``to``(x.device)
        let mutable inv_freq_expanded = inv_freq.unsqueeze(0).unsqueeze(-1)
        inv_freq_expanded <- inv_freq_expanded.expand([| position_ids.shape[0]; -1L; 1L |])

        let position_ids_expanded = position_ids.unsqueeze(1).``to``(torch.float32)
        let mutable freqs = inv_freq_expanded * position_ids_expanded
        freqs <- freqs.transpose(1, 2)
        let emb = torch.cat([| freqs; freqs |], dim = -1L)

        let cos = torch.cos(emb)
        let sin = torch.sin(emb)

        (cos.to_type(x.dtype), sin.to_type(x.dtype))

// ---- Module/Phi3Attention.cs -------------------------------------------------------------

type Phi3Attention(config: Phi3Config, layer_idx: int) as this =
    inherit nn.Module<Tensor, Tensor, Tensor, Tensor>("Phi3Attention")

    let attention_dropout = config.AttentionDropout
    let hidden_size = config.HiddenSize
    let num_heads = config.NumAttentionHeads
    let head_dim = hidden_size / num_heads
    let num_key_value_heads =
        if config.NumKeyValueHeads.HasValue then config.NumKeyValueHeads.Value
        else raise (ArgumentException("num_key_value_heads must be specified"))
    let num_key_value_groups = num_heads / num_key_value_heads
    let max_position_embeddings = config.MaxPositionEmbeddings
    let original_max_position_embeddings = config.OriginalMaxPositionEmbeddings
    let rope_theta = config.RopeTheta
    let rope_scaling = config.RopeScaling
    let is_causal = true

    do if head_dim * num_heads <> hidden_size then invalidArg "config" "hidden_size must be divisible by num_heads"

    let op_size = num_heads * head_dim + 2 * (num_key_value_heads * head_dim)
    let o_proj = nn.Linear(int64 (num_heads * head_dim), int64 hidden_size, hasBias = false, dtype = config.DType)
    let qkv_proj = nn.Linear(int64 hidden_size, int64 op_size, hasBias = false, dtype = config.DType)
    let rotary_emb : nn.Module<Tensor, Tensor, Tensor * Tensor> =
        if isNull rope_scaling then
            new Phi3RotaryEmbedding(rope_theta, max_position_embeddings, head_dim)
        else
            raise (NotImplementedException "Phi3SuScaledRotaryEmbedding is not transcribed")
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override this.forward(hidden_states: Tensor, positionIds: Tensor, attention_mask: Tensor) =
        use _ = torch.NewDisposeScope()
        let bsz = hidden_states.shape[0]
        let q_len = hidden_states.shape[1]

        let qkv = qkv_proj.forward(hidden_states)
        let query_pos = num_heads * head_dim
        let mutable query_states = qkv[Colon, Colon, Slice(stop = int64 query_pos)]
        let mutable key_states = qkv[Colon, Colon, Slice(int64 query_pos, int64 (query_pos + num_key_value_heads * head_dim))]
        let mutable value_states = qkv[Colon, Colon, Slice(int64 (query_pos + num_key_value_heads * head_dim))]
        query_states <- query_states.view(bsz, q_len, num_heads, head_dim).transpose(1, 2)
        key_states <- key_states.view(bsz, q_len, num_key_value_heads, head_dim).transpose(1, 2)
        value_states <- value_states.view(bsz, q_len, num_key_value_heads, head_dim).transpose(1, 2)

        let kv_seq_len = key_states.shape[key_states.shape.Length - 2]   // C#: key_states.IntShape()[^2]

        let (cos, sin) = rotary_emb.forward(value_states, positionIds)

        let (q, k) = Utils.ApplyRotaryPosEmb(query_states, key_states, cos, sin)
        query_states <- q
        key_states <- k

        // repeat k/v heads if n_kv_heads < n_heads
        key_states <- Utils.Phi3RepeatKV(key_states, num_key_value_groups)
        value_states <- Utils.Phi3RepeatKV(value_states, num_key_value_groups)

        let mutable attn_weights = torch.matmul(query_states, key_states.transpose(2, 3))
        attn_weights <- attn_weights / Math.Sqrt(float head_dim)

        if not (isNull attention_mask) then
            attn_weights <- attn_weights + attention_mask

        // upscale attention to fp32 to avoid overflow
        attn_weights <- nn.functional.softmax(attn_weights, dim = -1, dtype = ScalarType.Float32).``to``(value_states.dtype)
        attn_weights <- nn.functional.dropout(attn_weights, attention_dropout, this.training)

        let mutable attn_output = torch.matmul(attn_weights, value_states)

        attn_output <- attn_output.transpose(1, 2).contiguous()
        attn_output <- attn_output.reshape(bsz, q_len, hidden_size)

        attn_output <- o_proj.forward(attn_output)

        attn_output.MoveToOuterDisposeScope()

// ---- the entries ----------------------------------------------------------------------------

let config =
    Phi3Config(HiddenSize = 64, IntermediateSize = 128, NumAttentionHeads = 4, NumKeyValueHeads = Nullable 4,
               MaxPositionEmbeddings = 64, OriginalMaxPositionEmbeddings = 64, DType = ScalarType.Float32)

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let private evaluating (m: #nn.Module) = m.eval() |> ignore; m

let attention = new Phi3Attention(config, 0) |> evaluating
let mlp = new Phi3MLP(config) |> evaluating

// hidden states, position ids, the 4-D additive attention mask [bsz, 1, q_len, kv_len]
[<Kgen.Entry("float32[2,8,64], int64[2,8] in [0, 8), float32[2,1,8,8]")>]
let phi3_attention =
    <@ fun (hidden_states: Tensor) (position_ids: Tensor) (attention_mask: Tensor) ->
        attention.forward(hidden_states, position_ids, attention_mask) @>

[<Kgen.Entry("float32[2,8,64]")>]
let phi3_mlp = <@ fun (input: Tensor) -> mlp.forward(input) @>
