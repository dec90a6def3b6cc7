// modestgpt: ModestGpt (an F# port of minGPT on TorchSharp): its causal self-attention, its
// transformer block and the whole GPT forward, transcribed from the source with the helpers
// of Common.fs they call.
//
// Source: https://github.com/brianberns/ModestGpt, commit b8b43de87586c8343230def64eeb35d96fe094b2
//   ModestGpt/Common.fs (TorchExt, Tuple2, Tuple3), ModestGpt/Model/Config.fs,
//   ModestGpt/Model/Wrappers.fs (Linear, Embedding, LayerNorm), ModestGpt/Model/Projection.fs,
//   ModestGpt/Model/CausalSelfAttention.fs, ModestGpt/Model/Transformer.fs (FeedForward,
//   TransformerBlock, Transformer), ModestGpt/Model/Gpt.fs (forward only)
// Changes F# needs: [<ReflectedDefinition>] on every forward and on the helper modules the
// forwards call (F# keeps no body for kgen without it); Tuple2/Tuple3.ofArray match on the
// array's length instead of an array pattern (quotations cannot hold array patterns, FS0452).
// Changes TorchSharp 0.107 needs (the source is on 0.103.1): Projection's sizes are annotated
// int64 (0.107 added nn.Linear(Parameter, Parameter), so they no longer infer).
// Left out: the IWeightDecay interfaces (training only), Gpt.GetLoss and Gpt.Generate.
// Sizes: vocabulary 16, block 16, embedding 32, 4 heads, 2 layers; batch 2, sequence 8
// (shorter than the block, so the causal mask is sliced as in generation).
module Models.ModestGpt

open System

open TorchSharp
open type torch
open type TensorIndex
open FSharp.Core.Operators   // reclaim "float" and other F# operators

// ---- ModestGpt/Common.fs ---------------------------------------------------------------

[<AutoOpen; ReflectedDefinition>]
module TorchExt =

    /// Creates an explicit scalar.
    /// https://github.com/dotnet/TorchSharp/issues/1073
    let scalar (x : float) = x.ToScalar()

    /// Replacement for PyTorch's "@" operator.
    let (@@) a b = torch.matmul(a, b)

[<ReflectedDefinition>]
module Tuple2 =

    /// Creates a tuple from the given array.
    let ofArray (array : _[]) =
        match array.Length with   // the source: function [| a; b |] -> a, b (FS0452 in a quotation)
        | 2 -> array.[0], array.[1]
        | _ -> failwith $"Unexpected array length: {array.Length}"

[<ReflectedDefinition>]
module Tuple3 =

    /// Maps a function over the tuple.
    let map f (a, b, c) =
        f a, f b, f c

    /// Creates a tuple from the given array.
    let ofArray (array : _[]) =
        match array.Length with   // the source: function [| a; b; c |] -> a, b, c (FS0452 in a quotation)
        | 3 -> array.[0], array.[1], array.[2]
        | _ -> failwith $"Unexpected array length: {array.Length}"

// ---- ModestGpt/Model/Config.fs ---------------------------------------------------------

/// Model configuration.
type ModelConfig =
    {
        /// Number of tokens known the the model.
        VocabSize : int

        /// Maximum number of tokens in a sample.
        BlockSize : int

        /// Dimensionality of token embeddings.
        NumEmbed : int

        /// Number of stacked transformer blocks.
        NumLayer : int

        /// Number of attention heads.
        NumHead : int

        /// Dropout probability.
        Dropout : float
    }

// ---- ModestGpt/Model/Wrappers.fs -------------------------------------------------------

/// Module that takes a tensor as input and produces another tensor
/// as output.
type BaseModule = nn.Module<Tensor, Tensor>

module Init =

    /// Initializes the given using a normal distribution.
    let normal std tensor =
        nn.init.normal_(
            tensor,
            mean = 0.0,
            std = std) |> ignore

    /// Initializes the given tensor with zeros.
    let zeros tensor =
        nn.init.zeros_(tensor) |> ignore

    /// Initializes the given tensor with ones.
    let ones tensor =
        nn.init.ones_(tensor) |> ignore

/// Linear transformation.
type Linear(inputSize, outputSize, ?hasBias) as self =
    inherit BaseModule("Linear")

    let hasBias = defaultArg hasBias true
    let linear = nn.Linear(inputSize, outputSize, hasBias)

    do
        self.RegisterComponents()
        Init.normal 0.02 linear.weight
        if hasBias then Init.zeros linear.bias

    [<ReflectedDefinition>]
    override _.forward(inp) = inp --> linear

/// Lookup table of dimensional embeddings.
type Embedding(size, numEmbed) as self =
    inherit BaseModule("Linear")

    let embedding = nn.Embedding(size, numEmbed)

    do
        self.RegisterComponents()
        Init.normal 0.02 embedding.weight

    [<ReflectedDefinition>]
    override _.forward(inp) = inp --> embedding

/// Layer normalization.
type LayerNorm(shape : int64) as self =
    inherit BaseModule("LayerNorm")

    let layerNorm = nn.LayerNorm(shape)

    do
        self.RegisterComponents()
        Init.ones layerNorm.weight
        Init.zeros layerNorm.bias

    [<ReflectedDefinition>]
    override _.forward(inp) = inp --> layerNorm

// ---- ModestGpt/Model/Projection.fs -----------------------------------------------------

/// Linear projection followed by dropout.
type Projection(inputSize : int64, outputSize : int64, config) as self =   // 0.107's nn.Linear(Parameter, Parameter) needs the annotation
    inherit BaseModule("Projection")

    let linear = nn.Linear(inputSize, outputSize)
    let dropout = nn.Dropout(config.Dropout)

    do
        self.RegisterComponents()

           // apply a special scaled init to the residual projections, per GPT-2 paper
        let std = 0.02 / sqrt (2.0 * float config.NumLayer)
        Init.normal std linear.weight
        Init.zeros linear.bias

    [<ReflectedDefinition>]
    override _.forward(inp) = inp --> linear --> dropout

// ---- ModestGpt/Model/CausalSelfAttention.fs --------------------------------------------

/// Multi-head masked self-attention.
type CausalSelfAttention(config) as self =
    inherit BaseModule("CausalSelfAttention")

    do assert(config.NumEmbed % config.NumHead = 0)

        // query, key, value projections for all heads, but in a batch
    let inpProj = new Linear(config.NumEmbed, 3L * int64 config.NumEmbed)

        // causal mask to ensure that attention is only applied to the left in the input sequence
    let bias =
        let blockSize = config.BlockSize
        (torch.ones(blockSize, blockSize)
            |> torch.tril)
            .view(1, 1, blockSize, blockSize)

        // regularization
    let dropout = nn.Dropout(config.Dropout)

        // output projection
    let outProj = new Projection(config.NumEmbed, config.NumEmbed, config)

    do self.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(inp) =

            // batch size, sequence length, embedding dimensionality (numEmbed)
        let B, T, C = Tuple3.ofArray inp.shape
        assert(T <= config.BlockSize)
        assert(C = config.NumEmbed)

            // calculate query, key, values for all heads in batch and move head forward to be the batch dim
        let query, key, value =
            (inp --> inpProj)
                .split(config.NumEmbed, dim = 2)
                |> Tuple3.ofArray
                |> Tuple3.map (fun t ->
                    t.view(B, T, config.NumHead, C / int64 config.NumHead)
                        .transpose(1, 2)) // (B, nh, T, hs)

            // causal self-attention; Self-attend: (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T)
        let att =
            let att =
                let scale = 1.0 / (key.size(-1) |> float |> sqrt)
                (query @@ key.transpose(-2, -1)) * scalar scale
            let mask =
                let slice = Slice(stop = T)
                bias[Colon, Colon, slice, slice]
            att.masked_fill(torch.eq(mask, 0), Double.NegativeInfinity)
                .softmax(dim = -1)
                --> dropout

             // (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        (att @@ value)
            .transpose(1, 2)
            .contiguous()
            .view(B, T, C)   // re-assemble all head outputs side by side
            --> outProj      // output projection

// ---- ModestGpt/Model/Transformer.fs ----------------------------------------------------

/// Multi-layer perceptron.
type FeedForward(config) as self =
    inherit BaseModule("FeedForward")

    let sequential =
        let size = 4 * config.NumEmbed                       // increase dimensionality by 4x
        nn.Sequential(
            new Linear(config.NumEmbed, size),               // fully-connected layer ("fc")
            nn.GELU(),                                       // activation layer
            new Projection(size, config.NumEmbed, config))   // project back to original dimensionality

    do self.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(inp) = inp --> sequential

/// Transformer decoder block.
type TransformerBlock(config) as self =
    inherit BaseModule("TransformerBlock")

    let attn =
        nn.Sequential(
            new LayerNorm(config.NumEmbed),
            new CausalSelfAttention(config))
    let mlp =
        nn.Sequential(
            new LayerNorm(config.NumEmbed),
            new FeedForward(config))

    do self.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(inp) =
        let x = inp + (inp --> attn)   // residual ("skip") connection at both layers
        x + (x --> mlp)

/// Entire transformer.
type Transformer(config) as self =
    inherit BaseModule("Transformer")

        // token embeddings
    let wte = new Embedding(config.VocabSize, config.NumEmbed)

        // position embeddings
    let wpe = new Embedding(config.BlockSize, config.NumEmbed)

    let sequential =
        let blocks =
            Array.init config.NumLayer (fun _ ->
                new TransformerBlock(config) :> BaseModule)
                |> nn.Sequential
        nn.Sequential(
            nn.Dropout(config.Dropout),
            blocks,
            new LayerNorm(config.NumEmbed))

    do self.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(inp) =

            // get sequence length
        let _b, t = Tuple2.ofArray inp.shape
        if t > config.BlockSize then
            failwith $"Cannot forward sequence of length {t}, block size is only {config.BlockSize}"

            // position indexes of shape (1, t)
        let pos =
            torch.arange(
                0, t,
                dtype = torch.long,
                device = inp.device)
                .unsqueeze(0)

        let tokEmb = inp --> wte   // token embeddings of shape (b, t, numEmbed)
        let posEmb = pos --> wpe   // position embeddings of shape (1, t, numEmbed)
        (tokEmb + posEmb) --> sequential

// ---- ModestGpt/Model/Gpt.fs ------------------------------------------------------------

/// GPT Language Model
type Gpt(config) as self =
    inherit BaseModule("Gpt")

    let transformer = new Transformer(config)

    let lmHead = new Linear(config.NumEmbed, config.VocabSize, hasBias = false)

    do self.RegisterComponents()

    /// Produces logits for the given input.
    [<ReflectedDefinition>]
    override _.forward(input) =
        input --> transformer --> lmHead

// ---- the entries ------------------------------------------------------------------------

let config =
    { VocabSize = 16; BlockSize = 16; NumEmbed = 32; NumLayer = 2; NumHead = 4; Dropout = 0.1 }

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let private evaluating (m: #nn.Module) = m.eval() |> ignore; m

let attention = new CausalSelfAttention(config) |> evaluating
let block = new TransformerBlock(config) |> evaluating
let gpt = new Gpt(config) |> evaluating

[<Kgen.Entry("float32[2,8,32]")>]
let causal_self_attention = <@ fun (inp: Tensor) -> inp --> attention @>

[<Kgen.Entry("float32[2,8,32]")>]
let transformer_block = <@ fun (inp: Tensor) -> inp --> block @>

// token ids in [0, 16): the vocabulary
[<Kgen.Entry("int64[2,8] in [0, 16)")>]
let gpt_forward = <@ fun (input: Tensor) -> gpt.forward(input) @>
