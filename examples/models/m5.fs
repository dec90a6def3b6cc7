// m5: the M5 speech-command classifier of PyTorch's torchaudio tutorial (Dai et al. 2017,
// "Very Deep Convolutional Neural Networks for Raw Waveforms"): four 1-D convolutions over the
// raw waveform, each with batch norm, ReLU and a max pool of 4, an average pool over what
// remains, a linear layer and log_softmax; in evaluation mode, transcribed from Python into F#
// (there is no TorchSharp port of it).
//
// Source: https://github.com/pytorch/tutorials, commit 84c6357b6405aa921e11a19cbfed2b4c856eafbd
//   intermediate_source/speech_command_classification_with_torchaudio_tutorial.py (class M5)
// Changes F# needs: the submodules are the class's let fields (Python's attributes) and
// [<ReflectedDefinition>] marks forward; Python's `x.shape[-1]` is
// `x.shape.[x.shape.Length - 1]`; F.relu / F.avg_pool1d / F.log_softmax are
// torch.nn.functional's. Left out: the dataset, the resampling transform, training.
// The entry runs with stand-in trained statistics: BatchNorm1d starts at mean 0, variance 1,
// so after construction each gets random running statistics and affine parameters, as a
// checkpoint would.
// Sizes: the tutorial's own (n_channel 32, 35 labels; 1 s of audio resampled to 8 kHz: 8000
// samples, one channel), a batch of 2 (the tutorial: 256).
module Models.M5

open TorchSharp
open type TorchSharp.torch
open type TorchSharp.torch.nn
open FSharp.Core.Operators   // reclaim int64 from `open type torch`

type M5(?n_input: int64, ?n_output: int64, ?stride: int64, ?n_channel: int64) as this =
    inherit Module<Tensor, Tensor>("M5")

    let n_input = defaultArg n_input 1L
    let n_output = defaultArg n_output 35L
    let stride = defaultArg stride 16L
    let n_channel = defaultArg n_channel 32L

    let conv1 = nn.Conv1d(n_input, n_channel, kernel_size = 80L, stride = stride)
    let bn1 = nn.BatchNorm1d(n_channel)
    let pool1 = nn.MaxPool1d(4L)
    let conv2 = nn.Conv1d(n_channel, n_channel, kernel_size = 3L)
    let bn2 = nn.BatchNorm1d(n_channel)
    let pool2 = nn.MaxPool1d(4L)
    let conv3 = nn.Conv1d(n_channel, 2L * n_channel, kernel_size = 3L)
    let bn3 = nn.BatchNorm1d(2L * n_channel)
    let pool3 = nn.MaxPool1d(4L)
    let conv4 = nn.Conv1d(2L * n_channel, 2L * n_channel, kernel_size = 3L)
    let bn4 = nn.BatchNorm1d(2L * n_channel)
    let pool4 = nn.MaxPool1d(4L)
    let fc1 = nn.Linear(2L * n_channel, n_output)

    do this.RegisterComponents()

    [<ReflectedDefinition>]
    override _.forward(x: Tensor) =
        let mutable x = conv1.forward(x)
        x <- functional.relu(bn1.forward(x))
        x <- pool1.forward(x)
        x <- conv2.forward(x)
        x <- functional.relu(bn2.forward(x))
        x <- pool2.forward(x)
        x <- conv3.forward(x)
        x <- functional.relu(bn3.forward(x))
        x <- pool3.forward(x)
        x <- conv4.forward(x)
        x <- functional.relu(bn4.forward(x))
        x <- pool4.forward(x)
        x <- functional.avg_pool1d(x, x.shape.[x.shape.Length - 1])
        x <- x.permute(0L, 2L, 1L)
        x <- fc1.forward(x)
        functional.log_softmax(x, dim = 2L)

/// Stand-in trained statistics (see the file-top comment).
let trained (m: Module) =
    use _ = torch.no_grad()
    for struct (_, c) in m.named_modules() do
        match c with
        | :? Modules.BatchNorm1d as bn ->
            let n = bn.running_mean.shape.[0]
            bn.running_mean.copy_(torch.randn(n) * 0.1) |> ignore
            bn.running_var.copy_(torch.rand(n) + 0.5) |> ignore
            bn.weight.copy_(torch.rand(n) + 0.5) |> ignore
            bn.bias.copy_(torch.randn(n) * 0.1) |> ignore
        | _ -> ()

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

// the tutorial: M5(n_input=transformed.shape[0], n_output=len(labels)): one channel, 35 labels
let model = new M5(n_input = 1L, n_output = 35L)
trained model
model.eval() |> ignore

[<Kgen.Entry("float32[2,1,8000] in [-1, 1)")>]
let m5_forward = <@ fun (x: Tensor) -> model.forward(x) @>
