// mnist: the MNIST convolutional model of the TorchSharp F# examples (conv 3x3 -> relu -> conv
// 3x3 -> relu -> max pool -> dropout -> flatten -> linear -> relu -> dropout -> linear ->
// log_softmax), its forward the `-->` chain the example writes, in evaluation mode.
//
// Source: https://github.com/dotnet/TorchSharpExamples, commit 32e047a6d7bc3ea00bb02963128c317260f6d210
//   src/FSharp/FSharpExamples/MNIST.fs (type Model)
// Changes F# needs: [<ReflectedDefinition>] on forward (F# keeps no body for kgen without it).
// The constructor's CUDA move is kept (the device is torch.CPU here). Left out: the data
// loading, training and test loops around the model.
// Sizes: the example's own (1 channel 28x28 images, fc1 9216 -> 128: the model fixes 28x28), a
// batch of 2 (the example: 64 / 128).
module Models.Mnist

open TorchSharp
open type TorchSharp.torch
open type TorchSharp.torch.nn

type Model(name,device:torch.Device) as this =
    inherit Module<torch.Tensor,torch.Tensor>(name)

    let conv1 = Conv2d(1L, 32L, 3L)
    let conv2 = Conv2d(32L, 64L, 3L)
    let fc1 = Linear(9216L, 128L)
    let fc2 = Linear(128L, 10L)

    let pool1 = MaxPool2d(kernel_size=[|2L; 2L|])

    let relu = ReLU()

    let dropout1 = Dropout(0.25)
    let dropout2 = Dropout(0.5)
    let flatten = Flatten()

    let logsm = LogSoftmax(1L)

    do
        this.RegisterComponents()

        if device.``type`` = DeviceType.CUDA then
            this.``to``(device) |> ignore

    [<ReflectedDefinition>]
    override _.forward(input) =
        input
        --> conv1 --> relu --> conv2 --> relu --> pool1 --> dropout1
        --> flatten
        --> fc1 --> relu --> dropout2 --> fc2
        --> logsm

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let model = new Model("model", torch.CPU)
model.eval() |> ignore

[<Kgen.Entry("float32[2,1,28,28]")>]
let mnist = <@ fun (input: Tensor) -> model.forward(input) @>
