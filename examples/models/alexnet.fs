// alexnet: the AlexNet of the TorchSharp F# examples (modified for CIFAR10's 32x32 images: five
// convolutions with ReLU and three max pools, an adaptive average pool to 2x2, a classifier of
// three linear layers with dropout and a log_softmax), in evaluation mode.
//
// Source: https://github.com/dotnet/TorchSharpExamples, commit 32e047a6d7bc3ea00bb02963128c317260f6d210
//   src/FSharp/FSharpExamples/AlexNet.fs (type Model)
// Changes F# needs: [<ReflectedDefinition>] on forward (F# keeps no body for kgen without it).
// The constructor's CUDA move is kept (the device is torch.CPU here). Left out: the data
// loading, training and test loops around the model.
// Sizes: the example's own (3x32x32 CIFAR10 images, channels 64/192/384/256/256, classifier
// 1024 -> 4096 -> 4096 -> 10), a batch of 2 (the example: 64 / 128).
module Models.AlexNet

open TorchSharp

open type TorchSharp.torch.nn

let numClasses = 10L

type Model(name,device:torch.Device) as this =
    inherit Module<torch.Tensor,torch.Tensor>(name)

    let features = Sequential(("c1", Conv2d(3L, 64L, kernel_size=3L, stride=2L, padding=1L) :> Module<torch.Tensor,torch.Tensor>),
                              ("r1", ReLU(inplace=true) :> Module<torch.Tensor,torch.Tensor>),
                              ("mp1", MaxPool2d(kernel_size=[|2L; 2L|]) :> Module<torch.Tensor,torch.Tensor>),
                              ("c2", Conv2d(64L, 192L, kernel_size=3L, padding=1L) :> Module<torch.Tensor,torch.Tensor>),
                              ("r2", ReLU(inplace=true) :> Module<torch.Tensor,torch.Tensor>),
                              ("mp2", MaxPool2d(kernel_size=[|2L; 2L|]) :> Module<torch.Tensor,torch.Tensor>),
                              ("c3", Conv2d(192L, 384L, kernel_size=3L, padding=1L) :> Module<torch.Tensor,torch.Tensor>),
                              ("r3", ReLU(inplace=true) :> Module<torch.Tensor,torch.Tensor>),
                              ("c4", Conv2d(384L, 256L, kernel_size=3L, padding=1L) :> Module<torch.Tensor,torch.Tensor>),
                              ("r4", ReLU(inplace=true) :> Module<torch.Tensor,torch.Tensor>),
                              ("c5", Conv2d(256L, 256L, kernel_size=3L, padding=1L) :> Module<torch.Tensor,torch.Tensor>),
                              ("r5", ReLU(inplace=true) :> Module<torch.Tensor,torch.Tensor>),
                              ("mp3", MaxPool2d(kernel_size=[|2L; 2L|]) :> Module<torch.Tensor,torch.Tensor>),
                              ("avg", AdaptiveAvgPool2d([|2L; 2L|]) :> Module<torch.Tensor,torch.Tensor>))

    let classifier = Sequential(("d1", Dropout() :> Module<torch.Tensor,torch.Tensor>),
                                ("l1", Linear(256L * 2L * 2L, 4096L) :> Module<torch.Tensor,torch.Tensor>),
                                ("r6", ReLU(inplace=true) :> Module<torch.Tensor,torch.Tensor>),
                                ("d2", Dropout() :> Module<torch.Tensor,torch.Tensor>),
                                ("l2", Linear(4096L, 4096L) :> Module<torch.Tensor,torch.Tensor>),
                                ("r7", ReLU(inplace=true) :> Module<torch.Tensor,torch.Tensor>),
                                ("d3", Dropout() :> Module<torch.Tensor,torch.Tensor>),
                                ("l3", Linear(4096L, numClasses) :> Module<torch.Tensor,torch.Tensor>),
                                ("logsm", LogSoftmax(1L) :> Module<torch.Tensor,torch.Tensor>))

    do
        this.RegisterComponents()

        if device.``type`` = DeviceType.CUDA then
            this.``to``(device) |> ignore

    [<ReflectedDefinition>]
    override _.forward(input) =

        let avg = features.forward(input)
        let x = avg.view([|avg.shape.[0]; 256L*2L*2L|])

        classifier.forward(x)

// the modules' weights from a fixed seed: the document describes captured weights by their range
torch.manual_seed(20261125L) |> ignore

let model = new Model("model", torch.CPU)
model.eval() |> ignore

[<Kgen.Entry("float32[2,3,32,32]")>]
let alexnet = <@ fun (input: torch.Tensor) -> model.forward(input) @>
