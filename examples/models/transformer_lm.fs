// transformer_lm: the Transformer language model of dotnet/TorchSharpExamples,
// src/FSharp/FSharpExamples/SequenceToSequence.fs (commit 04126599, after the PyTorch tutorial
// "Language modeling with nn.Transformer"): token embedding scaled by sqrt(emsize), sinusoidal
// positional encoding, TorchSharp's nn.TransformerEncoder of nn.TransformerEncoderLayer (libtorch's
// native modules, expanded by the serializer: dotnet/Kgen/Modules.fs), a Linear decoder to the
// vocabulary, sequence-first [T, B]. Changes: sizes (emsize 32, 2 heads, hidden 64, 2 layers, a
// vocabulary of 50, sequences of 12); [<ReflectedDefinition>] on the forwards; eval mode (the
// layers' dropout probability lives in native code); the encoder called as `call(src, mask)`
// (TorchSharp 0.107's overload); the positional table built with slicing assignments written as
// index_put_; the square subsequent mask is the entry's second argument, as the source's
// forward takes it.
module Examples.Models.TransformerLm

open System
open TorchSharp
open type TorchSharp.torch.nn

type Tensor = torch.Tensor

let emsize = 32L
let nhidden = 64L
let nlayers = 2L
let nheads = 2L
let ntokens = 50L

type PositionalEncoding(dmodel: int64, maxLen: int64) as this =
    inherit Module<Tensor, Tensor>("PositionalEncoding")
    let dropout = Dropout(0.2)
    let pe =
        let pe = torch.zeros([| maxLen; dmodel |])
        let position = torch.arange(0L, maxLen, 1L).unsqueeze(1L).to_type(torch.float32)
        let divTerm = (torch.arange(0L, dmodel, 2L).to_type(torch.float32) * (-Math.Log(10000.0) / float dmodel)).exp()
        let NULL = Nullable<int64>()
        pe.index_put_((position * divTerm).sin(), [| torch.TensorIndex.Ellipsis; torch.TensorIndex.Slice(0L, NULL, 2L) |]) |> ignore
        pe.index_put_((position * divTerm).cos(), [| torch.TensorIndex.Ellipsis; torch.TensorIndex.Slice(1L, NULL, 2L) |]) |> ignore
        pe.unsqueeze(0L).transpose(0L, 1L)
    do this.RegisterComponents()
    member _.Pe = pe

    [<ReflectedDefinition>]
    override this.forward(t) =
        let NULL = Nullable<int64>()
        let x = t + this.Pe.[torch.TensorIndex.Slice(NULL, t.shape.[0]), torch.TensorIndex.Slice()]
        dropout.forward(x)

type TransformerModel(ntokens: int64) as this =
    inherit Module<Tensor, Tensor, Tensor>("Transformer")
    let pos_encoder = new PositionalEncoding(emsize, 64L)
    let encoder_layers = TransformerEncoderLayer(emsize, nheads, nhidden, 0.2)
    let transformer_encoder = TransformerEncoder(encoder_layers, nlayers)
    let encoder = Embedding(ntokens, emsize)
    let decoder = Linear(emsize, ntokens)
    let sqrEmSz = MathF.Sqrt(float32 emsize)
    do
        let initrange = 0.1
        init.uniform_(encoder.weight, -initrange, initrange) |> ignore
        init.zeros_(decoder.bias) |> ignore
        init.uniform_(decoder.weight, -initrange, initrange) |> ignore
        this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(t, mask) =
        let src = pos_encoder.forward(encoder.forward(t) * sqrEmSz)
        let enc = transformer_encoder.call(src, mask)
        decoder.forward(enc)

let model =
    torch.manual_seed 1L |> ignore
    let m = new TransformerModel(ntokens)
    m.eval()
    m

[<Kgen.Entry("int64[12,2] in [0, 50), float32[12,12] in [-1, 1)")>]
let transformer_lm = <@ fun (t: Tensor) (mask: Tensor) -> model.forward(t, mask) @>
