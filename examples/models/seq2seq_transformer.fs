// seq2seq_transformer: the Seq2SeqTransformer of pytorch/tutorials,
// beginner_source/translation_transformer.py (commit db77dcf6, "Language Translation with
// nn.Transformer"), in F# over TorchSharp's nn.Transformer (libtorch's native module, expanded by
// the serializer: dotnet/Kgen/Modules.fs): source and target token embeddings scaled by
// sqrt(emb_size), sinusoidal positional encoding, nn.Transformer with the masks the tutorial
// passes (src_mask, tgt_mask, no memory mask, the source / target / memory key padding masks), a
// Linear generator to the target vocabulary; sequence-first [S, B]. Changes: sizes (emb 32, 2
// heads, 2 encoder and 2 decoder layers, feed-forward 64, vocabularies of 24 and 20, sequences of
// 9 and 7); eval mode (dropout lives in native code); the padding masks computed from the ids in
// the forward (the tutorial's create_mask, PAD_IDX = 1), the square subsequent mask given as an
// argument; [<ReflectedDefinition>] on the forwards; TorchSharp 0.107's 8-argument
// Transformer.call for the tutorial's transformer(src, tgt, ...) call.
module Examples.Models.Seq2SeqTransformer

open System
open TorchSharp
open type TorchSharp.torch.nn

type Tensor = torch.Tensor

[<Literal>]
let PAD_IDX = 1L

type PositionalEncoding(emb_size: int64, maxlen: int64) as this =
    inherit Module<Tensor, Tensor>("PositionalEncoding")
    let dropout = Dropout(0.1)
    let pos_embedding =
        let den = (torch.arange(0L, emb_size, 2L).to_type(torch.float32) * (-Math.Log(10000.0) / float emb_size)).exp()
        let pos = torch.arange(0L, maxlen, 1L).to_type(torch.float32).reshape(maxlen, 1L)
        let pe = torch.zeros([| maxlen; emb_size |])
        let NULL = Nullable<int64>()
        pe.index_put_((pos * den).sin(), [| torch.TensorIndex.Colon; torch.TensorIndex.Slice(0L, NULL, 2L) |]) |> ignore
        pe.index_put_((pos * den).cos(), [| torch.TensorIndex.Colon; torch.TensorIndex.Slice(1L, NULL, 2L) |]) |> ignore
        pe.unsqueeze(-2L)
    do this.RegisterComponents()
    member _.PosEmbedding = pos_embedding

    [<ReflectedDefinition>]
    override this.forward(token_embedding) =
        let NULL = Nullable<int64>()
        dropout.forward(token_embedding + this.PosEmbedding.[torch.TensorIndex.Slice(NULL, token_embedding.shape.[0]), torch.TensorIndex.Colon])

type TokenEmbedding(vocab_size: int64, emb_size: int64) as this =
    inherit Module<Tensor, Tensor>("TokenEmbedding")
    let embedding = Embedding(vocab_size, emb_size)
    let scale = MathF.Sqrt(float32 emb_size)
    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(tokens) = embedding.forward(tokens.``long``()) * scale

type Seq2SeqTransformer(num_encoder_layers: int64, num_decoder_layers: int64, emb_size: int64, nhead: int64, src_vocab_size: int64, tgt_vocab_size: int64, dim_feedforward: int64) as this =
    inherit Module<Tensor, Tensor, Tensor, Tensor>("Seq2SeqTransformer")
    let transformer = Transformer(emb_size, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward, 0.1)
    let generator = Linear(emb_size, tgt_vocab_size)
    let src_tok_emb = new TokenEmbedding(src_vocab_size, emb_size)
    let tgt_tok_emb = new TokenEmbedding(tgt_vocab_size, emb_size)
    let positional_encoding = new PositionalEncoding(emb_size, 64L)
    do this.RegisterComponents()

    // create_mask's padding masks, from the ids; the square subsequent tgt_mask is an argument
    [<ReflectedDefinition>]
    override _.forward(src, trg, tgt_mask) =
        let src_emb = positional_encoding.forward(src_tok_emb.forward(src))
        let tgt_emb = positional_encoding.forward(tgt_tok_emb.forward(trg))
        let src_mask = torch.zeros(src.shape.[0], src.shape.[0])
        let src_padding_mask = src.eq(torch.tensor(PAD_IDX)).transpose(0L, 1L)
        let tgt_padding_mask = trg.eq(torch.tensor(PAD_IDX)).transpose(0L, 1L)
        let outs = transformer.call(src_emb, tgt_emb, src_mask, tgt_mask, null, src_padding_mask, tgt_padding_mask, src_padding_mask)
        generator.forward(outs)

let model =
    torch.manual_seed 7L |> ignore
    let m = new Seq2SeqTransformer(2L, 2L, 32L, 2L, 24L, 20L, 64L)
    m.eval()
    m

[<Kgen.Entry("int64[9,2] in [2, 24), int64[7,2] in [0, 20), float32[7,7] in [-1, 1)")>]
let seq2seq_transformer = <@ fun (src: Tensor) (trg: Tensor) (tgt_mask: Tensor) -> model.forward(src, trg, tgt_mask) @>
