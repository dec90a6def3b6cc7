// lstm_tagger: the LSTMTagger of pytorch/tutorials, beginner_source/nlp/sequence_models_tutorial.py
// (commit f77e1c2c, "Sequence Models and Long Short-Term Memory Networks": an LSTM part-of-speech
// tagger), in F# over TorchSharp's nn.LSTM (libtorch's native module, expanded by the serializer
// into ATen's layer loops: dotnet/Kgen/Recurrent.fs): word embeddings, the LSTM over the sentence
// (sequence-first, a batch of 1) from the zero state init_hidden makes, hidden2tag, log_softmax
// over the tags. Changes: the LSTM has 2 layers and is bidirectional (the tutorial's has 1 layer,
// one direction), so init_hidden's states are [2 * 2, 1, hidden] and hidden2tag reads 2 * hidden
// features; the sizes are the tutorial's (embedding 6, hidden 6, its 9 words and 3 tags); the
// returned state is not stored back into self.hidden (the tutorial's training loop resets it
// before every sentence); eval mode; [<ReflectedDefinition>] on forward.
module Examples.Models.LstmTagger

open System
open TorchSharp
open type TorchSharp.torch.nn

type Tensor = torch.Tensor

type LSTMTagger(embedding_dim: int64, hidden_dim: int64, vocab_size: int64, tagset_size: int64) as this =
    inherit Module<Tensor, Tensor>("LSTMTagger")
    let word_embeddings = Embedding(vocab_size, embedding_dim)
    // the LSTM takes word embeddings as inputs, and outputs hidden states of hidden_dim per direction
    let lstm = LSTM(embedding_dim, hidden_dim, numLayers = 2L, bidirectional = true)
    // the linear layer that maps from hidden state space to tag space
    let hidden2tag = Linear(2L * hidden_dim, tagset_size)
    do this.RegisterComponents()
    member _.hidden_dim = hidden_dim

    [<ReflectedDefinition>]
    override this.forward(sentence) =
        let embeds = word_embeddings.forward(sentence)
        // init_hidden: (num_layers * directions, minibatch_size, hidden_dim) zeros
        let hidden = struct (torch.zeros(4L, 1L, this.hidden_dim), torch.zeros(4L, 1L, this.hidden_dim))
        let struct (lstm_out, _, _) = lstm.forward(embeds.view(sentence.shape.[0], 1L, -1L), Nullable hidden)
        let tag_space = hidden2tag.forward(lstm_out.view(sentence.shape.[0], -1L))
        torch.nn.functional.log_softmax(tag_space, 1L)

// the tutorial's sizes: EMBEDDING_DIM = HIDDEN_DIM = 6, its 9 words and 3 tags (DET, NN, V)
torch.manual_seed(20261128L) |> ignore
let model = new LSTMTagger(6L, 6L, 9L, 3L)
model.eval() |> ignore

[<Kgen.Entry("int64[T] in [0, 9)")>]
let lstm_tagger = <@ fun (sentence: Tensor) -> model.forward sentence @>
