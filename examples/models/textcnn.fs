// textcnn: the CNN sentence classifier of Kim (2014) as Shawn1993/cnn-text-classification-pytorch
// writes it (CNN_Text): word embeddings, one 2-D convolution per kernel height spanning the
// whole embedding (3, 4 and 5 words), ReLU, a max pool over time of each, concatenated,
// dropout and a linear layer; in evaluation mode, transcribed from Python into F#.
//
// Source: https://github.com/Shawn1993/cnn-text-classification-pytorch, commit
//   5fffaba3842eb825c33343f7524fac59a9c51e33, model.py (class CNN_Text; main.py's defaults)
// Changes F# needs: the submodules are the class's let fields and [<ReflectedDefinition>] marks
// forward; `args` is an F# record of the fields CNN_Text reads; Python's list comprehensions
// over the ModuleList are F#'s array comprehensions (`[| for conv in convs1 -> ... |]`: torch.cat
// takes an array or IList, not an F# list); `x.size(2)` is `x.size(2)`;
// F.relu / F.max_pool1d are torch.nn.functional's. Left out: `if self.args.static: x =
// Variable(x)` (a no-op since PyTorch 0.4; main.py's default is static = false) and
// conv_and_pool (defined, never called: its body is the comprehension's).
// Sizes: main.py's defaults (embedding 128, 100 kernels of heights 3, 4, 5, dropout 0.5), a
// vocabulary of 100 words and 2 classes; a batch of 2 sentences of 16 words (ids in the
// vocabulary).
module Models.TextCnn

open TorchSharp
open type TorchSharp.torch
open type TorchSharp.torch.nn
open FSharp.Core.Operators   // reclaim int64 from `open type torch`

type Args =
    { embed_num: int64; embed_dim: int64; class_num: int64; kernel_num: int64; kernel_sizes: int64 list
      dropout: float; ``static``: bool }

type CNN_Text(args: Args) as this =
    inherit Module<Tensor, Tensor>("CNN_Text")

    let V = args.embed_num
    let D = args.embed_dim
    let C = args.class_num
    let Ci = 1L
    let Co = args.kernel_num
    let Ks = args.kernel_sizes

    let embed = nn.Embedding(V, D)
    let convs1 = nn.ModuleList([| for K in Ks -> nn.Conv2d(Ci, Co, struct (K, D)) |])
    let dropout = nn.Dropout(args.dropout)
    let fc1 = nn.Linear(int64 (List.length Ks) * Co, C)

    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: Tensor) =
        let mutable x = embed.forward(x) // (N,W,D)

        x <- x.unsqueeze(1L) // (N,Ci,W,D)
        let xs = [| for conv in convs1 -> functional.relu(conv.forward(x)).squeeze(3L) |] //[(N,Co,W), ...]*len(Ks)
        let xs = [| for i in xs -> functional.max_pool1d(i, i.size(2)).squeeze(2L) |] //[(N,Co), ...]*len(Ks)
        x <- torch.cat(xs, 1L)
        x <- dropout.forward(x) // (N,len(Ks)*Co)
        let logit = fc1.forward(x) // (N,C)
        logit

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let args = { embed_num = 100L; embed_dim = 128L; class_num = 2L; kernel_num = 100L; kernel_sizes = [ 3L; 4L; 5L ]
             dropout = 0.5; ``static`` = false }
let model = new CNN_Text(args)
model.eval() |> ignore

[<Kgen.Entry("int64[2,16] in [0, 100)")>]
let textcnn_forward = <@ fun (x: Tensor) -> model.forward(x) @>
